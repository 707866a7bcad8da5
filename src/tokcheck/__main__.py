import sys

from tokcheck.cli import main

sys.exit(main())
