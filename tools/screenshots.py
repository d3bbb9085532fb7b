"""Screenshots of what a learner sees, on a desktop (1280 px) and a phone (390 px), in Chromium.

    .venv/bin/mkdocs build --strict --site-dir /tmp/site
    .venv/bin/python tools/screenshots.py /tmp/site docs/contribute/screenshots

Takes, for each width: the home page's routes, a torchrun example with its rank tabs, the merged
tab of the restart lesson, a wrong fill-in answer with what the real run printed for it, and a
long code block. Nothing is staged: every click is a learner's, on the built site.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from dpguide.render import MERGED_TAB  # noqa: E402
from sitecheck import launch_chromium, serve  # noqa: E402

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


def shoot(page, base: str, out: Path, name: str) -> list[Path]:
    taken = []

    def save(locator, what: str) -> None:
        path = out / f"{what}-{name}.png"
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(path))
        taken.append(path)

    page.goto(base)
    page.evaluate("localStorage.clear()")
    page.goto(base)
    diagram = page.locator(".mermaid").first   # the route diagram (drawn by Mermaid, in a shadow root)
    diagram.scroll_into_view_if_needed()
    page.wait_for_timeout(2000)
    diagram.evaluate("element => { element.scrollIntoView({block: 'start'}); window.scrollBy(0, -70); }")
    page.screenshot(path=str(out / f"home-routes-{name}.png"))
    taken.append(out / f"home-routes-{name}.png")

    page.goto(base + "learn/ddp/")
    run = page.locator(".dpg-run").first
    code = run.locator("xpath=preceding::div[contains(@class, 'highlight')][1]")
    boxes = [code.bounding_box(), run.bounding_box()]
    top = min(b["y"] for b in boxes)
    clip = {"x": 0, "y": top, "width": page.viewport_size["width"],
            "height": max(b["y"] + b["height"] for b in boxes) - top}
    path = out / f"torchrun-example-{name}.png"
    page.screenshot(path=str(path), full_page=True, clip=clip)
    taken.append(path)

    page.goto(base + "learn/torchrun/")
    restart = page.locator(".dpg-run", has_text="restart 1").last
    restart.locator("label", has_text=MERGED_TAB).click()
    save(restart, "restart-merged")

    page.goto(base + "practice/data-loading/")
    page.wait_for_selector("#q-dl-sampler-loader .dpg-slot")
    question = page.locator("#q-dl-sampler-loader")
    for item, blank in (("RandomSampler", 0), ("sampler", 1)):
        question.locator(".dpg-bank").get_by_role("button", name=item, exact=True).click()
        question.locator(".dpg-slot").nth(blank).click()
    question.locator(".dpg-check").click()
    save(question, "wrong-fill-in")

    page.goto(base + "learn/convert-a-script/")
    save(page.locator("div.highlight").first, "code-fits")
    return taken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="a built site (mkdocs build --site-dir ...)")
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with serve(args.site) as base, launch_chromium() as chromium:
        for name, (width, height) in WIDTHS.items():
            context = chromium.new_context(viewport={"width": width, "height": height},
                                           device_scale_factor=1, is_mobile=name == "phone")
            page = context.new_page()
            for path in shoot(page, base, args.out, name):
                print(path)
            context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
