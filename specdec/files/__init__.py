"""Files the project writes and removes: whole or not at all (atomic), only what it made (owned), and
its measurement stores, read through a check (jsonstore), and a file's SHA-256 (digest)."""
