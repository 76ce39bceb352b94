"""The feature draft's vocabulary: ranked by the target's own answers, rows carried by token."""
import json

import numpy as np
import pytest
import torch

from specdec.train.smollm2.feature_vocab import carried_rows, onpolicy_vocab


def write_shard(folder, name, answer_ids):
    np.savez_compressed(folder / f"{name}.tokens.npz", answer_ids=np.array(answer_ids, np.uint16),
                        prompt_ids=np.array([1, 1, 1], np.uint16))


def test_vocab_ranks_answer_tokens_and_leaves_the_held_out_shards_out(tmp_path):
    shards = tmp_path / "gen"
    shards.mkdir()
    write_shard(shards, "shard_0000", [9] * 50)             # held out: must not count
    write_shard(shards, "shard_0002", [4, 4, 4, 7, 7, 2])
    write_shard(shards, "shard_0003", [7, 5, 5])
    file = tmp_path / "vocab.json"
    # counts: 7 -> 3, 4 -> 3, 5 -> 2, 2 -> 1; ties go to the lower id; sorted by id on disk
    assert onpolicy_vocab(3, 12, file, shards) == [4, 5, 7]
    assert json.loads(file.read_text())["keep_ids"] == [4, 5, 7]
    write_shard(shards, "shard_0004", [9] * 10)              # more data later: the file holds
    assert onpolicy_vocab(3, 12, file, shards) == [4, 5, 7]
    with pytest.raises(ValueError, match="holds 3 tokens"):
        onpolicy_vocab(4, 12, file, shards)


def test_rows_are_carried_by_token_and_new_tokens_mapped_like_the_old_ones():
    gen = torch.Generator().manual_seed(0)
    table = torch.randn(40, 6, generator=gen)                 # (V, H) the target's embedding
    drift = torch.randn(6, 6, generator=gen)                  # how training moved the head
    old_keep = list(range(0, 30))
    old_rows = table[old_keep] @ drift
    old_rows[3] += 1.0                                        # one row off the linear pattern
    new_keep = [3, 10, 31, 35]
    rows = carried_rows(old_rows, old_keep, new_keep, table)
    assert torch.equal(rows[0], old_rows[3]) and torch.equal(rows[1], old_rows[10])
    # tokens 31 and 35 were never trained: mapped by the fitted drift (up to token 3's offset)
    assert torch.allclose(rows[2:], table[[31, 35]] @ drift, atol=0.25)
    assert not torch.allclose(rows[2:], table[[31, 35]], atol=0.25)


def test_8_bit_groups_round_each_entry_within_half_a_step():
    from specdec.models import head8
    rows = torch.randn(5, 128, generator=torch.Generator().manual_seed(1)) * torch.arange(1, 129)
    q, scale = head8.quantize(rows)
    assert q.dtype == torch.int8 and scale.shape == (5, 2)          # two groups of 64 per row
    step = scale.repeat_interleave(64, dim=1)                        # (5, 128)
    assert ((head8.dequantize(q, scale) - rows).abs() <= step / 2 + 1e-5).all()
