#| run: python gil.py
"""Python work in two threads of one process versus two processes: what the GIL does to
DataParallel's threads.
"""
import multiprocessing as mp
import os
import threading
import time


def python_work(results):                    # pure Python: holds the GIL while it runs
    start, cpu_start = time.monotonic(), time.thread_time()
    total = 0
    for i in range(15_000_000):
        total += i * i
    results.put((start, time.monotonic(), time.thread_time() - cpu_start))


def measure(results, n):
    """Wall time from the first start to the last end, and the CPU time the workers used."""
    times = [results.get() for _ in range(n)]
    wall = max(end for _, end, _ in times) - min(start for start, _, _ in times)
    return wall, sum(cpu for _, _, cpu in times)


if __name__ == "__main__":
    print(f"CPU cores this program may use: {len(os.sched_getaffinity(0))}")
    ctx = mp.get_context("spawn")
    for label, make in [("one thread", None),
                        ("two threads in one process (like DP)", threading.Thread),
                        ("two processes (like DDP)", ctx.Process)]:
        results = ctx.Queue()
        if make is None:
            python_work(results)
            n = 1
        else:
            workers = [make(target=python_work, args=(results,)) for _ in range(2)]
            for w in workers:
                w.start()
            n = 2
        wall, cpu = measure(results, n)
        if make is not None:
            for w in workers:
                w.join()
        print(f"{label:<37} work {n}x: {wall:5.2f} s wall, {cpu:5.2f} s CPU,"
              f" cores busy {cpu / wall:.2f}")
