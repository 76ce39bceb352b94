"""`python -m specdec run|bench`: argument parsing (main.py) and what the terminal shows
(terminal.py)."""
