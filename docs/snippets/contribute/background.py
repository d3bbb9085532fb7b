#| run: python background.py
"""A block that starts a process and exits without waiting for it: the build ends it and says so."""
from gallery import show_output

show_output('''
    ```python
    import subprocess
    import sys

    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print("started a helper and did not wait for it")
    ```
''')
