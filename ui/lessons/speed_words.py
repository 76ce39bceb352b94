"""How the pair card words a figure's setting (T, k or the policy that picks it, the prompts), its spread,
and how that setting differs from the box's: the words speed_table.py and other_rows.py put in each row."""
from __future__ import annotations

from specdec.drafters.policies import PRICED
from specdec.drafters.registry import DRAFTERS
from specdec.records.provenance import Clock
from specdec.wording import _, times
from ui.lessons import store, store_words


def differences(key: store.Key, want: store.Key, picked: int | None = None) -> list[str]:
    """How a figure filed here differs from the box's settings, in words (`picked`: the k the box's
    policy picks here)."""
    said = differs(key.temperature, key.k if key.policy == want.policy else want.k, key.prompts, want)
    if key.policy != want.policy and key.policy == "constant" and key.k == picked:
        said.append(_("this row fixes k = {k}; the answer box's policy picks k each round").format(k=key.k))
    elif key.policy != want.policy:
        said.append(_("{theirs}, not {box}").format(theirs=k_words_of(key.k, key.policy),
                                                    box=k_words_of(want.k, want.policy, picked)))
    if key.drafter != want.drafter:
        said.append(_("another drafter: {drafter}").format(drafter=drafter_words(key.drafter)))
    if key.top_p != want.top_p:
        said.append(_("top-p {theirs:g}, not {box:g}").format(theirs=key.top_p, box=want.top_p))
    if (key.threads, key.precision) != (want.threads, want.precision):
        said.append(_("the target ran otherwise: {precision}, {threads} threads").format(
            precision=key.precision, threads=key.threads))
    if key.clock == Clock.CPU:
        said.append(_("CPU time: the machine was busy"))
    return said


def t_and_k(temperature: float, k: int, box_temperature: float, box_k: int) -> list[str]:
    """How a figure's T and k differ from the box's, in words."""
    said = []
    if temperature != box_temperature:
        said.append(_("T = {t:g}, not {box:g}").format(t=temperature, box=box_temperature))
    if k != box_k:
        said.append(_("k = {k}, not {box}").format(k=k, box=box_k))
    return said


def differs(temperature: float, k: int, prompts: store.PromptSet, want: store.Key) -> list[str]:
    """How a figure's T, k and prompts differ from the box's, in words."""
    said = t_and_k(temperature, k, want.temperature, want.k)
    if prompts.digest != want.prompts.digest:
        said.append(_("other prompts"))
    return said


def setting_of(temperature: float, k: int, prompts: store.PromptSet, policy: str = "constant",
             picked: int | None = None) -> str:
    return setting_words(temperature, k_words_of(k, policy, picked), store_words.set_name(prompts))


def setting_words(temperature: float, k_words: str, prompts: str) -> str:
    return _("T = {t:g}, {k}, {prompts}").format(t=temperature, k=k_words, prompts=prompts)


def k_words_of(k: int, policy: str, picked: int | None = None) -> str:
    """'k = 4', or how a draft-length policy picks k up to it ('confidence@0.3': its threshold;
    `picked`: the k the priced policy picks here)."""
    if policy == "constant":
        return _("k = {k}").format(k=k)
    if policy == PRICED and picked is not None:
        return _("k by this machine's prices (here k = {picked}), up to {k}").format(k=k, picked=picked)
    if policy == PRICED:
        return _("k by this machine's prices, up to {k}").format(k=k)
    return _("k by the {policy} policy, up to {k}").format(policy=_(policy.split("@", 1)[0]), k=k)


def drafter_words(drafter: str) -> str:
    """A drafter as measurements name it ('model', 'early-exit@4', 'tree:2x8'), in the page's words."""
    name = drafter.split("@", 1)[0].split(":", 1)[0]
    return _(DRAFTERS[name].label) if name in DRAFTERS else drafter


def spread(speedup: float, low: float | None, high: float | None) -> str:
    """'0.69× (0.67–0.70)': the median and its repeats' range, where they have one."""
    if low is None or high is None or low == high:
        return times(speedup)
    return f"{times(speedup)} ({low:.2f}–{high:.2f})"
