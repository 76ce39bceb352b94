"""The glossary: each term in English and Korean side by side, explained in the page's language.
Terms that the field keeps in English (KV cache, top-p, ...) stay so in the Korean column."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.i18n import N_, _
from ui.lessons import pair_card

TERMS = (   # (English, Korean, what it means — explained through _())
    ("speculative decoding", "추측 디코딩",
     N_("a cheap model drafts several tokens, the large model checks them all in one pass")),
    ("draft model (q)", "초안 모델 (q)", N_("the small, fast model that proposes tokens")),
    ("target model (p)", "타깃 모델 (p)",
     N_("the large model whose distribution the output must follow")),
    ("verification", "검증", N_("one target pass that scores every drafted token at once")),
    ("acceptance rate", "수용률", N_("accepted drafts / drafted tokens; a draft after a round's first rejection "
                                     "counts as not accepted, so it falls as k grows")),
    ("α̂ (mean β)", "α̂ (평균 β)", N_("a drafted token's chance of acceptance at its position, β = Σ min(p, q), "
                                   "averaged over the positions the target examined: the theory's α; above the "
                                   "acceptance rate, which also counts the drafts a rejection discarded")),
    ("tokens a round (L)", "라운드당 토큰 (L)", N_("tokens emitted per round, the final token included (serving "
                                              "engines: mean acceptance length); what a verifying pass buys")),
    ("c", "c", N_("a draft forward as the runs paid it, in one-token target steps")),
    ("v(M)", "v(M)", N_("a target pass over M tokens, in one-token target steps (1 where the pass is flat)")),
    ("residual", "잔여 분포 (residual)",
     N_("norm(max(0, p − q)): where a rejected draft's replacement is drawn from")),
    ("bonus token", "보너스 토큰", N_("the extra token drawn from p when every draft was accepted")),
    ("KV cache", "KV 캐시 (KV cache)",
     N_("stored keys and values of earlier positions; rolled back after a rejection")),
    ("temperature", "온도", N_("flattens (high) or sharpens (low) a distribution; 0 = greedy")),
    ("top-p", "top-p", N_("keeps the smallest set of tokens whose probability adds up to p")),
    ("greedy", "그리디", N_("always the most likely token (T = 0)")),
    ("round", "라운드", N_("draft → verify → accept/reject → final token")),
    ("tree of drafts", "초안 트리", N_("several candidates per position, verified in one pass")),
    ("pair card", "쌍 카드", N_("every figure of the active pair in one table: its prompts, T, k, acceptance, prices "
                               "and speedup (a button in the sidebar)")),
)

# One Korean word per concept. The catalog (locale/ko) uses the chosen term and none of the
# rejected ones, nor does the Korean column above (tests/test_i18n.py checks both).
KOREAN_TERMS = {   # concept: (chosen, rejected variants)
    "draft": ("초안", ("드래프트",)),
    "drafter": ("초안 방식", ("드래프터", "초안 작성자", "초안기")),
    "speculative decoding": ("추측 디코딩", ("speculative decoding", "Speculative decoding", "Speculative Decoding",
                                             "speculative 생성", "투기적 디코딩", "추론적 디코딩", "예측 디코딩")),
    "lab": ("실험실", ("실습실",)),
    "assisted generation": ("보조 생성", ("assisted generation", "assisted 행")),
    "typical acceptance": ("전형성 수용", ("typical acceptance",)),
    "target": ("타깃", ("타겟", "메인 모델", "목표 모델", "대상 모델")),
    "acceptance": ("수용", ("수락", "채택")),
    "verification": ("검증", ("검수",)),
    "rejection": ("거절", ("기각", "거부")),
    "residual": ("잔여 분포", ("잔차",)),
    "greedy": ("그리디", ("탐욕",)),
    "n-gram": ("n-gram", ("n-그램", "엔그램")),
    "this machine": ("이 컴퓨터", ("이 기기", "다른 기기", "이 머신", "머신이", "이 장치")),
    "guided tour": ("둘러보기", ("가이드 투어", "투어")),           # the sidebar's page name
    "chain": ("체인", ("사슬",)),
    "profile": ("프로필", ("프로파일",)),
    "price / cost (of a pass, a draft, a round)": ("비용", ("가격",)),
    "position (in the text)": ("위치", ("자리",)),              # review 55: 자리 18 times beside 위치 15
    "shipped (with the app)": ("함께 배포", ("함께 제공",)),     # review 58: two words for one
    "section (of a page)": ("절", ("단원",)),
    "a machine like this one": ("같은 기종의 컴퓨터", ("같은 CPU 모델의 컴퓨터",)),
    # review 56: three names for one baseline
    "the target alone (the baseline)": ("타깃 모델 혼자", ("자기회귀", "일반 디코딩", "일반 실행", "일반 패스")),
}


def glossary() -> None:
    with st.expander(_("Glossary: English and Korean side by side")):
        # a table, not a data grid: a grid cuts a long meaning at its column's edge, a table wraps it
        st.table(pd.DataFrame([{"English": en, "한국어": ko, _("meaning"): _(meaning)} for en, ko, meaning in TERMS]),
                 hide_index=True, border="horizontal")
        st.caption(_("Badges beside a figure say whose it is:") + " " + pair_card.legend())
