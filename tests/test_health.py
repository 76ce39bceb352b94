"""The served app's /healthz (ui/server/health.py): "ok", or 503 with the reason while a turn is stuck."""
import asyncio
import threading

from ui.server import gate, health, turns


def probe() -> tuple[int, str]:
    response = asyncio.run(health.answer(None))
    return response.status_code, response.body.decode()


def test_the_route_is_healthz_for_get_and_head():
    route, = health.routes()
    assert route.path == "/healthz" and {"GET", "HEAD"} <= route.methods


def test_healthy_until_a_turn_passes_its_deadline_then_unhealthy_with_the_reason(monkeypatch):
    assert probe() == (200, "ok\n")
    inside, release = threading.Event(), threading.Event()

    def session():
        with gate.turn():
            inside.set()
            release.wait(20)

    t = threading.Thread(target=session)
    t.start()
    try:
        assert inside.wait(20)
        assert probe() == (200, "ok\n")              # held, but well within 120 s
        monkeypatch.setattr(turns, "LIMIT_S", 0.0)
        monkeypatch.setattr(turns, "GRACE_S", 0.0)
        status, text = probe()
        assert status == 503
        assert text.startswith("unhealthy: 1 compute slot(s) held for ") and "past the 0 s deadline" in text
    finally:
        release.set()
        t.join(timeout=20)
    assert probe() == (200, "ok\n")                  # the turn ended: healthy again
