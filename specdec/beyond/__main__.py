import sys

from specdec.beyond.cli import main

sys.exit(main())
