"""The media the scenarios carry (issue 20): a PNG's tEXt sentence and a binary PDF's comment read back from bytes and
from content blocks in every shape a request carries them, and nothing read from anything else."""

from __future__ import annotations

import base64

from harness import _deepagents_adapter as da
from harness.media_format import (
    binary_with_text,
    block_bytes,
    data_url,
    decoded_text,
    from_data_url,
    media_texts,
    png_with_text,
)

SENTENCE = "the badge code is KESTREL-42"


def test_png_and_pdf_carry_their_sentence_deterministically():
    png = png_with_text(SENTENCE)
    assert png == png_with_text(SENTENCE) and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert decoded_text(png) == SENTENCE
    pdf = binary_with_text("the seal number is SEAL-1")
    assert decoded_text(pdf) == "the seal number is SEAL-1"
    try:
        pdf.decode("utf-8")
        raise AssertionError("the PDF must not be UTF-8 text (deepagents stores it as base64)")
    except UnicodeDecodeError:
        pass


def test_bytes_of_another_shape_or_a_corrupt_png_carry_nothing():
    assert decoded_text(b"plain text") is None
    assert decoded_text(png_with_text(SENTENCE)[:30]) is None  # cut inside a chunk
    no_text = png_with_text(SENTENCE).replace(b"tEXtComment", b"zTXtComment")
    assert decoded_text(no_text) is None


def test_every_block_shape_a_request_carries_is_read():
    b64 = base64.b64encode(png_with_text(SENTENCE)).decode()
    url = f"data:image/png;base64,{b64}"
    shapes = [
        {"type": "image", "base64": b64, "mime_type": "image/png"},  # LangChain standard (read_file)
        {"type": "image_url", "image_url": {"url": url}},  # OpenAI chat, as langchain-openai sends it
        {"type": "file", "file": {"file_data": url, "filename": "badge.png"}},  # OpenAI file part
        {"type": "image", "url": url},
    ]
    for block in shapes:
        assert media_texts([block]) == [SENTENCE], block
    assert media_texts([{"type": "text", "text": SENTENCE}]) == []  # text is text, not media
    assert media_texts("a string") == []
    assert block_bytes({"type": "image", "base64": "not base64!"}) is None
    assert block_bytes({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}) is None


def test_a_scenario_file_given_as_a_data_url_is_seeded_as_base64():
    url = data_url("image/png", png_with_text(SENTENCE))
    assert from_data_url(url) == ("image/png", url.split(",", 1)[1])
    assert from_data_url("# a text file") is None
    seeded = da.seed_files({"/images/a.png": url, "/notes/a.md": "# a text file"})
    assert seeded["/images/a.png"]["encoding"] == "base64" and seeded["/notes/a.md"]["encoding"] == "utf-8"
    assert base64.b64decode(seeded["/images/a.png"]["content"]) == png_with_text(SENTENCE)
