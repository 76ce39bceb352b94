"""Lesson-only code paths (teaching material, never used by the engine)."""
