"""In a server: many requests at once — batched verification, continuous batching, prefix
caching, and the batch size where speculation stops paying (issue 30)."""
from dataclasses import replace

import pandas as pd
import streamlit as st

from specdec import defaults
from specdec.bench import machine, roofline
from specdec.bench import server as serving
from specdec.bench.batching import facts as facts_of
from specdec.bench.record import BatchSweep
from specdec.bench.server import PrefixRun, Timeline
from specdec.drafters.registry import DRAFTERS
from specdec.records.provenance import Clock
from specdec.settings import LENGTHS, Mode
from specdec.wording import times
from ui import family, jobs, metrics_view, payoff_answer, session, shell, sidebar, state, tables
from ui.figures import server as lp
from ui.i18n import _
from ui.lessons import badges, fast_elsewhere, server, store
from ui.measured import local, measured
from ui.round_view import chart

shell.page(__file__)

st.title(_("In a server"))
st.caption(_("Every other page serves one request at a time. A serving engine runs many at once: "
             "one pass of the target computes the next position of every request in the batch."))

MAX_NEW = LENGTHS.server


# the columns that fit a 1400 px window (the CSV holds every one)
COLUMNS = ["batch", "mode", "tokens_per_s", "speedup", "latency_s", "ttft_s", "pass_ms", "pass_rows"]


def intro() -> None:
    st.write(_("Requests served together share each read of the weights: a draft's extra rows are nearly free "
               "for one request on a GPU and stop being free as the batch grows, sooner the shorter the requests."))
    with st.expander(_("Why a batch changes the price of drafts")):
        st.write(_("On a GPU, one request's target pass is mostly spent reading the weights from memory, so "
                   "checking k + 1 tokens costs about as much as checking one: there, drafts are nearly free."))
        st.write(_("A batch shares that read: one pass feeds every request's tokens. As the batch grows, the pass "
                   "turns from reading into arithmetic on every row, the drafts' extra rows stop being free, and "
                   "at some batch size speculation stops paying (vLLM and SGLang advise it at low load). Each "
                   "request's KV cache is read too and is not shared: long requests keep the pass a read up to "
                   "larger batches."))
        st.write(_("On a CPU the extra rows cost more even for one request. The sections below show what they "
                   "cost on the machine that measured them."))


def settings_now(pair):
    """The sidebar's settings as the server runs them (the pair loaded once: each load draws the sidebar's
    words about the target again)."""
    return replace(serving.speculative(state.settings(), pair), max_new_tokens=MAX_NEW)


def sweep(pair, names, chat: bool, texts: list[str], inputs: list) -> None:
    st.header(_("1 · Throughput and latency against batch size"))
    s = settings_now(pair)
    key = server.sweep_key(names, s, texts, chat, state.ran())
    result = measured(
        "server_sweep", key, lambda pr: server.sweep(pair, inputs, s, pr), record=BatchSweep,
        button=_("Measure batch sizes 1 to 16"),
        intro=_("Serves the same {r} requests (the {n} bundled prompts cycled, {tokens} new tokens each) "
                "at most B at a time, for B = {sizes}: the target alone and speculative (k = {k}, T = {t}), "
                "two interleaved repeats.").format(r=max(max(defaults.SIZES), len(texts)), n=len(texts),
                                                   sizes=", ".join(map(str, defaults.SIZES)), tokens=MAX_NEW,
                                                   k=s.k, t=s.temperature))
    if not result:
        st.header(_("2 · Why: the price of one target pass"))
        st.write(_("Measure the batch sizes above: this section then shows what one target pass cost as "
                   "it fed more tokens."))
        return
    rows, facts, mine = result.rows, facts_of(result), local("server_sweep", key, BatchSweep)
    st.write(badges.of(None if mine else result.provenance.cpu, result.provenance.date) + " " + server.verdict(facts))
    box, profile = payoff_answer.answer(pair, s)[0], machine.of(pair)
    st.markdown(server.beside_box(facts, box, profile.step_ms if profile else None))   # not small print: review 42
    c1, c2 = st.columns(2)
    with c1:
        chart(lp.batch_figure(rows, "tokens_per_s", _("Tokens per second, all requests together"),
                              _("tokens/s")), "server-tps")
    with c2:
        chart(lp.batch_figure(rows, "latency_s", _("Latency: a request's time from its arrival to its last token"),
                              _("seconds")), "server-latency")
    if result.clock == Clock.CPU:
        st.info(_("The machine was busy while this was measured: tokens/s use the CPU time the runs "
                  "themselves needed (load {load:.1f} per core).").format(load=result.load))
    how_run(names, s, result, facts, None if mine else (box, profile))
    with st.expander(_("Every number, batch size by batch size")):
        shown = tables.frame(rows)[COLUMNS]
        shown["mode"] = shown["mode"].map(_)
        tables.show(shown, "server_rows")
        jobs.csv_button(tables.frame(rows), "batch-sweep", "server_csv")
    why(rows, facts)


def how_run(names, s, result: BatchSweep, facts, shipped) -> None:
    """The sweep's method and caveats, behind one expander (issue 51: a section opens with one sentence and its
    figure): whose settings, what it served, batch size 1's own prices, the latency's clock, and where the sweep was
    shipped (`shipped`: the box and the profile), why its batch-size-1 figure is not the answer box's."""
    with st.expander(_("How this sweep was run, and what its figures hold")):
        st.caption(_("Pair {target} ← {draft}, drafter “{drafter}”, k = {k}, T = {t}: the sidebar's "
                     "settings (a tree drafter is replaced by its chain; a batch cannot verify trees).").format(
            target=names[0], draft=names[1] or _("no draft model"), drafter=_(DRAFTERS[s.drafter].label),
            k=s.k, t=s.temperature))
        st.caption(server.served(result) + " " + server.batch_one(facts))
        st.caption(_("Every request arrives at the start, so latency holds the wait in the queue: at batch size 1 a "
                     "request waits for all before it; a bigger batch shortens the wait and lengthens each pass."))
        if (noisy := server.latency_note(result)) is not None:
            st.caption(noisy)
        if shipped is not None:
            box, profile = shipped
            st.markdown(_("**Why its batch-size-1 figure is not the answer box's**"))
            st.markdown(server.shipped_why(facts, result, box, profile.step_ms if profile else None))


def why(rows, facts) -> None:
    st.header(_("2 · Why: the price of one target pass"))
    chart(lp.pass_price_figure(rows), "server-pass")
    big = max(r.batch for r in rows)
    draft = next(r.draft_ms for r in rows if r.mode == Mode.SPECULATIVE and r.batch == big)
    st.write(_("From batch size 1 to {b}, the speculative pass fed {rows:.1f}× more tokens and took "
               "{cost:.1f}× longer; over the same range the target alone's throughput grew {ar:.1f}×.").format(
        b=big, rows=facts.rows_growth, cost=facts.pass_growth, ar=facts.ar_growth))
    st.caption(_("While a pass is a read of the weights, more rows cost little; once it is arithmetic, each row "
                 "costs its share, and a rejected draft's row is paid for and thrown away. Drafting here runs "
                 "request by request ({draft:.0f} ms a round at batch size {b}); serving engines batch the "
                 "draft too.").format(b=big, draft=draft))


def memory(pair, inputs: list) -> None:
    st.header(_("3 · Memory: the KV caches of every request"))
    s = settings_now(pair)
    memo = (tuple(st.session_state.get("active_pair") or ()), state.precision(), s.drafter)
    if st.session_state.get("_server_kv", (None,))[0] != memo:      # one short run per pair, not per rerun
        st.session_state["_server_kv"] = (memo, serving.kv_per_token(pair, inputs[0], s))
    kv = st.session_state["_server_kv"][1]
    per_request = kv.prompt_tokens + MAX_NEW
    rows = [{_("cache"): name, _("bytes per token"): round(per_token),
             _("MB per request"): round(per_token * per_request / 2**20, 2),
             _("MB at batch size 16"): round(per_token * per_request * 16 / 2**20, 1)}
            for name, per_token in ((_("target"), kv.target), (_("draft"), kv.draft)) if per_token]
    st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder="—", key="server_memory")
    said = _("Read off the caches of a short run: a request of {n} tokens ({p} of prompt and {m} new). "
             "Every request keeps its own cache for as long as it runs; a batch holds them all, so "
             "memory, not only compute, limits how many requests a server takes at once.").format(
        n=per_request, p=kv.prompt_tokens, m=MAX_NEW)
    st.caption(badges.here() + " " + said)


def timeline(pair, names, chat: bool, texts: list[str], inputs: list) -> None:
    st.header(_("4 · Continuous batching: requests come and go"))
    s = settings_now(pair)
    key = store.measurement("server_timeline", names, s, texts, chat, state.ran(), requests=8)
    result = measured(
        "server_timeline", key, lambda pr: serving.timeline(pair, inputs, s, pr), record=Timeline,
        button=_("Serve 8 arriving requests"),
        intro=_("8 requests arrive at random (about 4 a second), at most 4 in the batch; each joins at a "
                "round boundary and leaves when it stops, and a waiting one takes its place."))
    if not result:
        return
    chart(lp.timeline_figure(result), "server-timeline")
    t = server.latency(result)
    st.write(_("Time to first token: median {ttft:.2f} s, worst {worst:.2f} s (waiting, the prefill and "
               "one round); time per output token after it: median {tpot:.0f} ms. At most {busy} "
               "requests shared a round.").format(ttft=t.ttft_median, worst=t.ttft_max,
                                                   tpot=t.tpot_median * 1e3, busy=t.busiest))


def prefix(pair, names, chat: bool, texts: list[str], inputs: list) -> None:
    st.header(_("5 · Prefix caching: read a shared beginning once"))
    s = settings_now(pair)
    key = store.measurement("server_prefix", names, s, texts, chat, state.ran())
    result = measured(
        "server_prefix", key, lambda pr: serving.prefixes(pair, inputs, s, pr), record=PrefixRun,
        button=_("Measure the prefix cache"),
        intro=_("Serves the same requests with and without a prefix cache that keeps the target's KV "
                "cache of prompt beginnings in blocks of 16 tokens."))
    if not result:
        return
    st.write(server.prefix_words(result))
    st.caption(_("Chats share their template's opening (the system prompt); documents asked about "
                 "several times share the document."))


GPU_FLOOR_US = 20          # the calculator's default layer floor (When it is fast, section 5)
GPU_CONTEXTS = (256, 4096)  # tokens each request holds: a short chat, a long document


def gpu() -> None:
    """Where the gain goes on a datacenter GPU, by its roofline (no GPU is measured here): When it is fast's
    calculator at its defaults (an 8B target, a 135M draft, bf16, the default pair's α at its first temperature, a
    20 µs layer floor) and the k it finds best for one request, so its one-request figure is the calculator's; then
    against batch size for short and long requests (each pass reads every request's KV cache)."""
    alphas, _where = fast_elsewhere.measured_alphas()
    if not alphas:
        return
    t = sorted(alphas)[0]
    gpu_machine = roofline.PUBLISHED[-1]
    target, draft = fast_elsewhere.model(8.0, "bf16"), fast_elsewhere.model(0.135, "bf16", "135M")
    one = fast_elsewhere.calculate(gpu_machine, target, draft, alphas[t], floor_us=GPU_FLOOR_US,
                                   context=fast_elsewhere.CONTEXT).best
    lines = {n: fast_elsewhere.batched(gpu_machine, target, draft, alphas[t], one.k, floor_us=GPU_FLOOR_US, context=n)
             for n in GPU_CONTEXTS}
    st.subheader(_("On a datacenter GPU: the gain against batch size"))
    roof = fast_elsewhere.calculate(gpu_machine, target, draft, alphas[t], context=fast_elsewhere.CONTEXT).best
    st.markdown(badges.elsewhere() + " " + _(
        "On an {machine}, an 8B target drafted by a 135M model (bf16; α = {alpha:.2f}, the default pair at T = {t:g}) "
        "would run **{low:.2f}–{high}** for one request, as When it is fast's calculator says at its defaults: "
        "{low_x} at k = {k} if every layer takes at least {floor} µs (the chart below), {high} by the roofline "
        "alone.").format(machine=_(gpu_machine.name), k=one.k, alpha=alphas[t], t=t, low=one.speedup,
                         high=times(roof.speedup), low_x=times(one.speedup), floor=GPU_FLOOR_US))
    st.markdown(_("In a batch, the requests' length decides: {short}; {long}.").format(
        short=server.gpu_ends(GPU_CONTEXTS[0], lines[GPU_CONTEXTS[0]]),
        long=server.gpu_ends(GPU_CONTEXTS[1], lines[GPU_CONTEXTS[1]])))
    named = {_("requests of {n} tokens").format(n=f"{n:,}"): points for n, points in lines.items()}
    chart(lp.gpu_batch_figure(named, _("Predicted speedup against batch size, by the GPU's roofline")), "server-gpu")
    st.caption(_("A pass of the target alone over B requests reads the weights once for all of them, and each "
                 "request's KV cache; a speculative one feeds B·(k + 1) tokens. While the reading dominates, the "
                 "drafts' rows are nearly free; once the arithmetic does, every row costs its share."))
    with st.expander(_("How this is predicted")):
        st.write(_("From the GPU's published peak figures (memory rate and bf16 arithmetic), each layer taking at "
                   "least {floor} µs, each pass reading the weights once and every request's KV cache (K and V of "
                   "each layer in 16 bits: {kv:.0f} KB a token of context for the 8B target, {dkv:.0f} KB for the "
                   "draft; the one-request figure reads {ctx} tokens). The weights' reading is shared by the batch, "
                   "the caches' grows with it, so long requests keep a big batch's pass a read where short ones "
                   "turn it into arithmetic (MagicDec, Chen et al. 2024, measured speculation paying at batch sizes "
                   "of 32 to 256 on long contexts). A prediction, not a measurement; When it is fast, section 5, "
                   "prices other machines and model sizes.").format(
            floor=GPU_FLOOR_US, ctx=f"{fast_elsewhere.CONTEXT:,}", kv=target.kv_bytes / 1024,
            dkv=draft.kv_bytes / 1024))


def beyond() -> None:
    st.header(_("6 · Beyond one machine"))
    gpu()
    st.markdown(_("""The same settings in serving engines:
- **vLLM**: `speculative_config` with `method` = a draft model, `ngram` (prompt lookup) or an EAGLE
  head, and `num_speculative_tokens` = k.
- **SGLang**: `--speculative-algorithm` (EAGLE, EAGLE3, NGRAM, STANDALONE) with
  `--speculative-num-steps`, `--speculative-eagle-topk` and `--speculative-num-draft-tokens` for trees.
- **Several GPUs**: the target is split across them (tensor parallelism) and every pass pays for their
  communication; the draft is small and usually runs whole on one of them.

This lab is where to see each decision; those engines are where to serve with it."""))
    st.markdown(_("What they report about speculation, and what each figure is here:"))
    metrics_view.glossary()


intro()
pair = sidebar.active_pair()
names = st.session_state.get("active_pair")
if pair is None:
    st.info(_("Load a model pair in the sidebar to measure."))
else:
    chat = session.uses_chat(pair)
    texts, inputs = family.speed_prompts(chat)
    sweep(pair, names, chat, texts, inputs)
    st.divider()
    memory(pair, inputs)
    st.divider()
    timeline(pair, names, chat, texts, inputs)
    st.divider()
    prefix(pair, names, chat, texts, inputs)
st.divider()
beyond()
