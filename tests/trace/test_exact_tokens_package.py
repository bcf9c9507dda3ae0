"""The exact tokenizer loads bpe-openai's compiled tokenizer without the package's slow ``__init__``: it must give the
ids the package's own public API gives (``bpe_openai.get_encoding(name).encode_ordinary``), on every content type the
estimate eval generates. Slow: importing the package parses every bundled rank table (about 3 s here)."""

import random

import pytest

from harness.scenarios.estimate import CONTENT_TYPES, content
from harness.trace import exact_tokens as et

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("encoding", et.ENCODINGS)
def test_the_fast_path_gives_the_public_apis_ids(encoding):
    import bpe_openai

    public = bpe_openai.get_encoding(encoding)
    texts = ["hello world", "你好，世界！", "👋🌍 ok", "<|endoftext|> is text here"]
    texts += [content(kind, random.Random(kind), 600) for kind in CONTENT_TYPES]
    for text in texts:
        assert et.encode(text, encoding) == public.encode_ordinary(text), text[:40]
        assert et.text_tokens(text, encoding) == len(public.encode_ordinary(text))
