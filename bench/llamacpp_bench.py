#!/usr/bin/env python3
"""llama.cpp's side of `cargo xtask bench engine`: the same GGUF, system prompt, article and
thread count as `laika-host bench engine`, through llama-cpp-python (`pip install
llama-cpp-python`). Prints one JSON object with the fields the Rust side prints.

- prompt_tokens: the chat-templated prompt (the GGUF's own template) tokenised by the model.
- first_token_ms: from the request to the first streamed text; prompt_tok_s = prompt_tokens /
  first_token (so it includes the first sampled token, like the Rust side).
- gen_tok_s: (completion_tokens - 1) / (total - first_token).

Sampling mirrors `Sampling::greedy()` as far as llama-cpp-python allows: temperature 0 (greedy)
with frequency penalty 0.3; it has no DRY sampler, so the texts may differ, not the work per token.
"""

import argparse
import json
import os
import sys
import time


def rss_mb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def loadavg():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def prompt_tokens(llm, messages):
    """Tokens of the prompt as the chat handler builds it: the GGUF's Jinja template, rendered
    with the model's BOS/EOS, tokenised with special tokens parsed. None if that fails."""
    try:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = llm.metadata["tokenizer.chat_template"]
        vocab = llm._model

        def token_text(token_id):
            return vocab.token_get_text(token_id) if token_id >= 0 else ""

        formatter = Jinja2ChatFormatter(
            template=template, eos_token=token_text(llm.token_eos()), bos_token=token_text(llm.token_bos())
        )
        prompt = formatter(messages=messages).prompt
        return len(llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
    except Exception as error:  # noqa: BLE001 - a count is optional; the caller falls back
        print(f"llamacpp_bench: cannot count prompt tokens from the template: {error}", file=sys.stderr)
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="the GGUF file")
    parser.add_argument("--text", required=True, help="the article (user content)")
    parser.add_argument("--system", required=True, help="a file with the system prompt")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--n-ctx", type=int, default=8192)
    args = parser.parse_args()

    from llama_cpp import Llama
    import llama_cpp

    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    with open(args.system, encoding="utf-8") as f:
        system = f.read()
    messages = [{"role": "system", "content": system}, {"role": "user", "content": text}]

    load_before = loadavg()
    started = time.perf_counter()
    llm = Llama(
        model_path=args.model,
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        # Prompt processing uses its own thread count (default: every core); same N for both.
        n_threads_batch=args.threads,
        n_gpu_layers=0,
        verbose=False,
    )
    load_ms = (time.perf_counter() - started) * 1000.0
    counted_prompt = prompt_tokens(llm, messages)

    started = time.perf_counter()
    first_token = None
    pieces = 0
    out = []
    finish_reason = None
    stream = llm.create_chat_completion(
        messages=messages,
        stream=True,
        temperature=0.0,
        top_k=1,
        top_p=1.0,
        min_p=0.0,
        frequency_penalty=0.3,
        max_tokens=args.max_tokens,
    )
    for chunk in stream:
        choice = chunk["choices"][0]
        content = choice.get("delta", {}).get("content")
        if content:
            if first_token is None:
                first_token = time.perf_counter() - started
            pieces += 1
            out.append(content)
        if choice.get("finish_reason"):
            finish_reason = choice["finish_reason"]
    total = time.perf_counter() - started

    # The context holds the prompt and every generated token but the last one sampled (it is
    # never evaluated), so the completion count is what it holds past the prompt, plus one.
    in_context = llm.n_tokens
    if counted_prompt is not None:
        completion_tokens = max(in_context - counted_prompt + 1, pieces)
        n_prompt = counted_prompt
    else:
        completion_tokens = pieces
        n_prompt = in_context - max(pieces - 1, 0)
    first = first_token if first_token is not None else total
    gen_time = total - first
    result = {
        "engine": "llama.cpp",
        "llama_cpp_python": llama_cpp.__version__,
        "load_ms": load_ms,
        "prompt_tokens": n_prompt,
        "completion_tokens": completion_tokens,
        "streamed_pieces": pieces,
        "finish_reason": finish_reason,
        "first_token_ms": first * 1000.0,
        "total_ms": total * 1000.0,
        "prompt_tok_s": n_prompt / first if first > 0 else None,
        "gen_tok_s": (completion_tokens - 1) / gen_time if completion_tokens > 1 and gen_time > 0 else None,
        "rss_mb": rss_mb(),
        "threads": args.threads,
        "loadavg_before": load_before,
        "n_ctx": args.n_ctx,
        "system_info": llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip(),
        "text_preview": "".join(out)[:200],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
