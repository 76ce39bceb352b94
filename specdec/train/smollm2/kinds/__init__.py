"""The chat-kind training set's templates and word lists, one module per kind of the held-out chat
set (kind_instructions.py builds the set from them)."""
