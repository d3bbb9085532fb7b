#| run: python fail_block.py
"""What a failing block looks like: the page says nothing about failing, the code raises."""
from gallery import show

show('''
    ```python
    import torch
    print(torch.zeros(2, 3) @ torch.zeros(2, 3))
    ```
''')
