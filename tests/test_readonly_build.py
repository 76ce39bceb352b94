"""A read-only build/ (a container image, a shared install), end to end: `python -m specdec run`
works from what is there and says in one line what it cannot keep; no traceback.

The sandbox and CI run as root, which chmod does not stop, so build/ is made really read-only in
a mount namespace of the test's own: `unshare --mount` (root) or `unshare --map-root-user --mount`
(anyone, where user namespaces are allowed), then `mount --bind -o ro FOLDER build`. The mount is
seen by that one command only; the project's own build/ is never written.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
UNSHARE = (("unshare", "--mount"), ("unshare", "--map-root-user", "--mount"))
MOUNT = 'mount --bind {ro} "$1" "$2" && shift 2 && exec "$@"'
# float32 on the stdlib target: the two float32 layouts are timed and kept in build/kernels.json
RUN = ("run", "--target", "stdlib/target", "--draft", "stdlib/draft-1l", "--prompt", "def f(",
       "--max-new-tokens", "12", "--temperature", "0", "--precision", "float32", "--json")


def _works(prefix: tuple[str, ...], folder: Path) -> bool:
    """Does `prefix` give a private mount in which a read-only bind really refuses a write?"""
    script = 'mount --bind -o ro "$1" "$1" && ! touch "$1/written" 2>/dev/null'
    try:
        done = subprocess.run([*prefix, "sh", "-c", script, "sh", str(folder)], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and not (folder / "written").exists()


@pytest.fixture(scope="module")
def with_build(tmp_path_factory):
    """run(folder, *cli_args, writable=False): `python -m specdec ARGS` with `folder` in place of build/."""
    probe = tmp_path_factory.mktemp("probe")
    prefix = next((p for p in UNSHARE if shutil.which(p[0]) and _works(p, probe)), None)
    if prefix is None:
        pytest.skip("cannot make build/ read-only here: needs `unshare --mount` as root, or user "
                    "namespaces for `unshare --map-root-user --mount`")
    BUILD.mkdir(exist_ok=True)                       # a mount point (a fresh clone may have none yet)
    env = {k: v for k, v in os.environ.items() if k not in ("SPECDEC_KERNELS", "SPECDEC_CACHE")}
    env.update(HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")

    def run(folder: Path, *args: str, writable: bool = False) -> subprocess.CompletedProcess:
        script = MOUNT.format(ro="" if writable else "-o ro")
        return subprocess.run([*prefix, "sh", "-c", script, "sh", str(folder), str(BUILD),
                               sys.executable, "-m", "specdec", *args],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return run


def tokens(done: subprocess.CompletedProcess) -> tuple[list[int], str]:
    run = json.loads(done.stdout)
    return run["token_ids"], run["stop_reason"]


def test_a_read_only_build_runs_from_what_is_there_and_says_once_what_it_cannot_keep(with_build, tmp_path):
    kept, empty = tmp_path / "kept", tmp_path / "empty"
    kept.mkdir()
    empty.mkdir()
    first = with_build(kept, *RUN, writable=True)         # a writable build/: the timing is kept
    assert first.returncode == 0, first.stderr
    assert (kept / "kernels.json").is_file(), first.stderr
    assert "cannot keep" not in first.stderr

    bare = with_build(empty, *RUN)                         # read-only and empty: timed, not kept
    assert bare.returncode == 0, bare.stderr
    assert "Traceback" not in bare.stderr
    said = bare.stderr.strip().splitlines()               # each thing it cannot keep, once
    assert len(said) == len(set(said)) and all("cannot keep" in s or "cannot be written" in s for s in said), said
    timing = [s for s in said if "kernels.json" in s]
    assert len(timing) == 1 and "cannot keep" in timing[0] and "Read-only file system" in timing[0], said
    assert tokens(bare) == tokens(first)
    assert list(empty.iterdir()) == []

    before = (kept / "kernels.json").read_bytes()
    again = with_build(kept, *RUN)                         # read-only with the timing there: used as is
    assert again.returncode == 0, again.stderr
    assert again.stderr.strip() == ""                      # nothing timed, so nothing it cannot keep
    assert tokens(again) == tokens(first)
    assert (kept / "kernels.json").read_bytes() == before


def test_a_read_only_build_compiles_the_integer_kernels_for_the_run_and_says_so(with_build, tmp_path):
    """--precision intdot with nothing kept and build/ read-only: the kernels are compiled into a
    temporary folder for this run, stderr says so in one line, and the tokens are the target's own
    greedy tokens in intdot, decoded here in this process (build/ writable)."""
    import specdec
    from specdec.models import intdot
    if not intdot.available():
        pytest.skip("no C compiler here: intdot is not offered")
    args = [*RUN[:RUN.index("--precision")], "--precision", "intdot", "--json"]
    empty = tmp_path / "empty"
    empty.mkdir()
    bare = with_build(empty, *args)
    assert bare.returncode == 0, bare.stderr
    assert "Traceback" not in bare.stderr and "cannot multiply" not in bare.stderr
    said = [line for line in bare.stderr.strip().splitlines() if "intdot" in line]
    assert len(said) == 1 and "compiled for this run only" in said[0], bare.stderr
    assert list(empty.iterdir()) == []
    pair = specdec.load_pair("stdlib/target", None, precision="intdot")
    alone = specdec.autoregressive(pair, "def f(", temperature=0, max_new_tokens=12)
    assert tokens(bare) == (list(alone.token_ids), str(alone.stop_reason))
