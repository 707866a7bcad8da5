"""Build the tiny Llama's weights. Run with the vLLM environment's Python (it has torch and
transformers; tokcheck's own environment does not need them):

    python tinymodel_build.py SPEC_JSON

``SPEC_JSON`` is a JSON object: ``out_dir`` (where to save), ``seed`` (int), ``config``
(keyword arguments of ``transformers.LlamaConfig``) and ``keep_token_ids``. The weights are
random (seeded), cast to BF16 and saved as safetensors with ``config.json`` and
``generation_config.json``. The (tied) embedding rows of every token not in ``keep_token_ids``
are zero: their logit is then exactly 0 while some kept token's is positive, so greedy decoding
only ever emits kept tokens (whole words that survive a decode → encode round trip, which keeps
a tokenizer's count of the output equal to the server's). This file imports nothing from
tokcheck: it runs in another environment.
"""

import json
import sys


def main(spec_path: str) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    spec = json.loads(open(spec_path, encoding="utf-8").read())
    torch.manual_seed(spec["seed"])
    config = LlamaConfig(**spec["config"])
    model = LlamaForCausalLM(config).to(torch.bfloat16)
    keep = torch.zeros(config.vocab_size, dtype=torch.bool)
    keep[torch.tensor(spec["keep_token_ids"], dtype=torch.long)] = True
    with torch.no_grad():
        model.get_input_embeddings().weight[~keep] = 0
    model.save_pretrained(spec["out_dir"], safe_serialization=True)
    n_params = sum(p.numel() for p in model.parameters())
    print(json.dumps({"parameters": n_params}))


if __name__ == "__main__":
    main(sys.argv[1])
