"""The server's machinery, apart from the lessons: how `make run` starts (serve.py, launch.py),
who computes when (gate.py, turns.py), the health route (health.py) and the memory closed
sessions give back (memory.py)."""
