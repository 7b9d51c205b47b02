"""`python -m kotae.cli`."""
import sys

from kotae.cli import main

sys.exit(main())
