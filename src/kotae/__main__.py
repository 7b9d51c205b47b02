"""`python -m kotae` (what MCP client configs spawn when the `kotae` script is not on their PATH)."""
import sys

from kotae.cli import main

sys.exit(main())
