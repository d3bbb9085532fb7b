#| run: python fail_argparse.py
"""Ranks that exit through argparse: no traceback, so the summary quotes the first failing rank's
last line.
"""
from gallery import include, show

show(f'''
    ```python
    {include('train.py')}
    ```
''', {"train.py": '''
    #| run: torchrun --standalone --nproc-per-node=2 train.py
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("epochs", type=int)
    args = parser.parse_args()
'''})
