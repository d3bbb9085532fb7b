#| run: python show_diff.py
"""Print what changed from single.py to ddp.py (keep the three files together)."""
import difflib
from pathlib import Path

import ddp      # importing runs no main(): nothing trains
import single

old = Path(single.__file__).read_text().splitlines(keepends=True)
new = Path(ddp.__file__).read_text().splitlines(keepends=True)
print("".join(difflib.unified_diff(old, new, "single.py", "ddp.py")), end="")
