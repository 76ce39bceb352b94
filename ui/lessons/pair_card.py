"""The pair card (issue 51): every figure the lab shows for the active pair, one numbered row each,
with the acceptance and the prices behind its speedup, so a learner who meets 23 % on one page
and 48 % on another finds both side by side and sees which prompts, T and k each is:

    acceptance rate      accepted drafts ÷ drafted tokens
    α̂ (mean β)           a drafted token's mean chance of acceptance (the theory's α)
    tokens a round (L)   tokens a round kept, the final one included
    c                    a draft forward as its runs paid it, in target steps
    v(k + 1)             a pass of k + 1 tokens as its runs paid it, in target steps
    speedup              the median over repeats, with their range

The rows are speed_table's (the same order, the same numbers): the card shows what each row
measured, the speed table why its speedup is not the box's. A number a section did not record is
a dash. The first row, where the machine has a profile, is its prices measured at start: every
prediction on every page uses them.
"""
from __future__ import annotations

from dataclasses import dataclass

from specdec.wording import _
from ui.lessons import badges


@dataclass(frozen=True)
class Numbers:
    """What a figure's runs measured besides their speedup (None: not recorded by its section)."""
    rate: float | None = None       # acceptance rate
    alpha: float | None = None      # α̂ (mean β)
    tokens: float | None = None     # tokens a round (L)
    c: float | None = None          # a draft forward / a target step
    v: float | None = None          # a pass of k + 1 tokens / a target step

    @staticmethod
    def of(point) -> "Numbers":
        """From a measured point, a filed figure or a typical run: the fields it has."""
        return Numbers(getattr(point, "acceptance_rate", None), getattr(point, "alpha", None),
                       getattr(point, "mean_acceptance_length", None), getattr(point, "c", None),
                       getattr(point, "verify_cost", None))


def head() -> list[str]:
    return ["#", _("whose"), _("section"), _("settings"), _("acceptance rate"), _("α̂ (mean β)"),
            _("tokens a round (L)"), "c", "v(k + 1)", _("speedup")]


def markdown(rows, profile: Numbers | None = None, only: set[int] | None = None) -> str:
    """speed_table's rows (each with its `numbers`) as the card's Markdown table, numbered from 1;
    `profile`: this machine's prices measured at start, a row 0 above them; `only`: the numbers shown
    (None: every row)."""
    names = head()
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    if profile is not None:
        lines.append(_line("0", badges.profile(), _("this machine's prices, measured at start"),
                           _("a short prompt, every k"), profile, "—"))
    lines += [_line(str(i), r.whose, r.section, r.setting, r.numbers, f"**{r.figure}**")
              for i, r in enumerate(rows, 1) if only is None or i in only]
    return "\n".join(lines)


def _line(number: str, whose: str, section: str, setting: str, n: Numbers | None, figure: str) -> str:
    n = n or Numbers()
    cells = [_percent(n.rate), _plain(n.alpha), _plain(n.tokens), _plain(n.c, 3), _plain(n.v)]
    return "| " + " | ".join([number, whose, section, setting, *cells, figure]) + " |"


def _percent(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def _plain(x: float | None, places: int = 2) -> str:
    return "—" if x is None else f"{x:.{places}f}"


def row_of(rows, temperature: float, k: int, section: str | None = None, whose: str | None = None,
           prompts: str | None = None) -> int | None:
    """The number of the first row at T and k — of `section` (its words, as a row names it), with the
    badge `whose`, on `prompts` (a set's words), each where given — for a page that points a learner
    from its own figure to the card (None: the card has no such row)."""
    mark = _("T = {t:g}, k = {k},").format(t=temperature, k=k)
    return next((i for i, r in enumerate(rows, 1) if r.setting.startswith(mark)
                 and section in (None, r.section) and whose in (None, r.whose)
                 and (prompts is None or prompts in r.setting)), None)


def legend(shown: str | None = None) -> str:
    """One line naming each badge the card (and every page) uses; `shown`: a text whose badges alone are
    named (review 22: a legend of six badges where the card showed three)."""
    named = [("here", badges.here(), _("a run on this machine")),
             ("profile", badges.profile(), _("measured at start, behind every prediction")),
             ("predicted", badges.predicted(), _("computed from those prices, not timed")),
             ("like", badges.like_this_legend(), _("shipped: measured on a machine of this CPU model")),
             ("family", badges.family_legend(), _("shipped from a CPU recorded by its family only: perhaps this "
                                                  "model, perhaps another")),
             ("another", badges.another_legend(), _("shipped from another CPU: for comparison"))]
    kinds = None if shown is None else badges.kinds_in(shown)
    return "  ".join(badge + " " + text for kind, badge, text in named if kinds is None or kind in kinds)


def c_spread(rows, profile: Numbers | None, step_ms: float | None) -> str:
    """The range of c the figures measured on this CPU model (this machine's runs, shipped ones from a
    machine like it) against row 0's, and why it moves: a draft step lasts a few ms ('' with fewer
    than two such figures, or no profile)."""
    cs = [r.numbers.c for r in rows if r.numbers and r.numbers.c and r.section != _("In a server")
          and r.whose.startswith((":green-badge", ":blue-badge"))]
    if len(cs) < 2 or profile is None or profile.c is None or not step_ms:
        return ""
    said = _("c on this CPU model, where a run measured it: {low:.3f}–{high:.3f} (row 0: {c:.3f}). A draft step "
             "lasts about {ms:.1f} ms, so a little other work on the machine, or colder caches, moves it from run "
             "to run; every prediction prices at row 0.").format(
        low=min(cs), high=max(cs), c=profile.c, ms=profile.c * step_ms)
    server = [r.numbers.c for r in rows if r.numbers and r.numbers.c and r.section == _("In a server")]
    if server:                      # review 36: "the footnote gives 0.144–0.214, but row 12 shows c = 0.072"
        said += " " + _("In a server's c ({c:.3f}) is left out: there a draft step is set against the batched "
                        "loop's own pass of the target alone, a slower one.").format(c=min(server))
    return said
