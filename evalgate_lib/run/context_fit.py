"""Does the longest prompt a configuration can build, plus its answer, fit the generator's context?

A prompt longer than the context window is not an error at either backend: Ollama keeps the
tail of an over-long prompt and the embedded backend cuts its head (``ids[:, -budget:]``),
so the model answers without part of the context (or without the instruction) and the run
measures something other than the configuration. This check refuses such a configuration
before any model is called, with the numbers.

It builds the worst prompt the run can produce: the ``top_k`` longest chunks of the corpus
(as chunked by this configuration, so a custom chunker is measured too) and the longest gold
question in the template, and estimates its tokens from its words. The tokenizer is not
loaded for this (it would load the model): :data:`TOKENS_PER_WORD` is a conservative
factor, measured with the embedded generator's own tokenizer (SmolLM2) on the shipped
corpus at 1.43 tokens per whitespace-separated word on average and 2.08 for the densest
chunk of at least 20 words; 2.0 is used, plus :data:`TEMPLATE_TOKENS` for the chat template
the backend wraps the prompt in. The estimate then plus ``max_tokens`` must not exceed the
context: ``num_ctx`` for Ollama, and for the embedded backend the smaller of ``num_ctx`` and
the model's trained context length (:data:`~evalgate_lib.generation.backends.local.CONTEXT_LENGTH`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from evalgate_lib.chunks.chunking import Chunk, chunk_corpus
from evalgate_lib.errors import InputError
from evalgate_lib.generation.backends import BackendSpec
from evalgate_lib.inputs.config import RunConfig
from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.inputs.prompts import render_context, render_prompt
from evalgate_lib.text.tokens import sentence_spans

#: Tokens per whitespace-separated word assumed by the estimate (see the module docstring).
TOKENS_PER_WORD = 2.0
#: Tokens allowed for the chat template around the prompt (role markers, system line).
TEMPLATE_TOKENS = 64
#: Characters per token assumed as a floor: a text has at least ``characters / 4`` tokens. Prose has
#: about that many (fewer tokens than :data:`TOKENS_PER_WORD` gives it, so the floor never decides
#: for prose); it decides for a chunk whose "words" are long, a base64 blob or a minified line
#: with no spaces, which the word count alone would call one word while it fills the context.
CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class PromptSize:
    """The worst prompt of a configuration, in words and estimated tokens."""

    chunks: int
    longest_chunk_words: int
    prompt_words: int
    prompt_tokens: int
    prompt_characters: int = 0


def estimate_tokens(words: int, characters: int = 0) -> int:
    """Estimated tokens of a text of ``words`` words and ``characters`` characters, with the template's allowance.

    :data:`TOKENS_PER_WORD` per word, or :data:`CHARS_PER_TOKEN` characters per token where that gives more.
    """
    return math.ceil(max(words * TOKENS_PER_WORD, characters / CHARS_PER_TOKEN)) + TEMPLATE_TOKENS


def _by_characters(words: int, characters: int) -> bool:
    """Whether the character floor, not the word count, decides the estimate of such a text."""
    return characters / CHARS_PER_TOKEN > words * TOKENS_PER_WORD


def worst_prompt(config: RunConfig, chunks: Sequence[Chunk], questions: Sequence[GoldQuestion]) -> PromptSize:
    """Size of the prompt holding the ``top_k`` longest chunks (by estimated tokens) and the longest question."""
    longest = sorted(chunks, key=lambda c: estimate_tokens(len(c.text.split()), len(c.text)), reverse=True)
    longest = longest[: config.top_k]
    question = max((q.question for q in questions), key=lambda q: len(q.split()), default="")
    prompt = render_prompt(config.prompt_template, render_context([(c.title, c.text) for c in longest]), question)
    words = len(prompt.split())
    longest_words = max((len(c.text.split()) for c in longest), default=0)
    return PromptSize(len(longest), longest_words, words, estimate_tokens(words, len(prompt)), len(prompt))


def check_context_fit(
    config: RunConfig, chunks: Sequence[Chunk], questions: Sequence[GoldQuestion], context: int, context_name: str
) -> PromptSize:
    """Refuse ``config`` when its worst prompt plus ``max_tokens`` would not fit ``context`` tokens.

    ``context_name`` says which limit applies (``"num_ctx 4096"``, or the embedded model's
    length), so the message names the number the user can change.
    """
    size = worst_prompt(config, chunks, questions)
    max_tokens = config.generation.max_tokens
    if size.prompt_tokens + max_tokens <= context:
        return size
    if _by_characters(size.prompt_words, size.prompt_characters):
        measure = (
            f"{size.prompt_words:,} words but {size.prompt_characters:,} characters ≈ {size.prompt_tokens:,} tokens "
            f"(at {CHARS_PER_TOKEN:g} characters/token + {TEMPLATE_TOKENS}: its words are too long to count by words)"
        )
        remedy = "long runs without spaces (a blob, a minified line) cannot be split by a chunker; remove them"
    else:
        measure = (
            f"{size.prompt_words:,} words ≈ {size.prompt_tokens:,} tokens (at {TOKENS_PER_WORD} tokens/word "
            f"+ {TEMPLATE_TOKENS})"
        )
        remedy = _remedy(config, chunks)
    raise InputError(
        f"{config.path}: the prompt cannot fit the generator's context: top_k {config.top_k:,} "
        f"(the {size.chunks:,} longest chunks, up to {size.longest_chunk_words:,} words each) + template + question "
        f"= {measure}, + max_tokens {max_tokens:,} = {size.prompt_tokens + max_tokens:,} > {context_name}; {remedy}"
    )


def _remedy(config: RunConfig, chunks: Sequence[Chunk]) -> str:
    """What would make the worst prompt fit, for this configuration's chunker.

    The ``sentence`` chunker never cuts inside a sentence: when its longest chunk is one sentence (a
    long run of text with no sentence end: a log, a list of keywords, a paragraph of clauses), no
    window makes it shorter, and "lower the chunk size" would send the user to a setting that cannot help.
    """
    if config.chunking.get("method") != "sentence" or not chunks:
        return "lower top_k, the chunk size or max_tokens, or raise num_ctx"
    longest = max(chunks, key=lambda c: estimate_tokens(len(c.text.split()), len(c.text)))
    words = len(longest.text.split())
    sentence = max((len(longest.text[s:e].split()) for s, e in sentence_spans(longest.text)), default=0)
    if 2 * sentence <= words:  # several sentences of some length: fewer per chunk makes it shorter
        return "lower top_k, the window (sentences per chunk) or max_tokens, or raise num_ctx"
    return (
        f"its longest chunk ({longest.article_id}, at character {longest.start:,}) is mostly one sentence of "
        f"{sentence:,} words with no sentence end in it, which the sentence chunker never cuts (no window makes it "
        "shorter): break that text into sentences, or chunk with the markdown or fixed chunker, which cut such a "
        "run by words"
    )


def context_limit(spec: BackendSpec, num_ctx: int) -> tuple[int, str]:
    """``(tokens, name)`` of the context a prompt and its answer must fit, for the chosen backend."""
    if spec.kind == "local":
        from evalgate_lib.generation.backends.local import CONTEXT_LENGTH, GENERATOR_NAME

        if CONTEXT_LENGTH < num_ctx:
            return CONTEXT_LENGTH, f"the embedded generator's context length {CONTEXT_LENGTH:,} ({GENERATOR_NAME})"
    return num_ctx, f"num_ctx {num_ctx:,}"


def checked_chunks(config: RunConfig, articles: Sequence[Article]) -> list[Chunk]:
    """The corpus chunked by ``config``, a bad chunking value named with the config file."""
    try:
        return chunk_corpus(articles, config.chunking, search=(config.path.parent,))
    except InputError as exc:
        text = str(exc)
        if str(config.path) in text:
            raise
        raise InputError(f"{config.path}: [chunking]: {text}") from None
