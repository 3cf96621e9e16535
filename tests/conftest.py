import sys
from pathlib import Path

# Lets tests import the shared `builders` helpers as a plain module.
sys.path.insert(0, str(Path(__file__).parent))
