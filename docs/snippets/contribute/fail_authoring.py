#| run: python fail_authoring.py
"""What an authoring mistake looks like: an option name with a typo."""
from gallery import show

show('''
    # A lesson

    ```python nprocs="2"
    print("hello")
    ```
''')
