#!/usr/bin/env bash
# Make sure Debian's chromium and chromium-driver are installed for the browser test, and a
# CJK font so that the Korean pages render as text, not boxes (fonts-noto-cjk).
# Installs them with apt-get where we can (root); otherwise says what is missing.
have_font() { fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; }
if command -v chromium >/dev/null && command -v chromedriver >/dev/null && have_font; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium, chromium-driver and fonts-noto-cjk for the browser test ..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-cjk) >/tmp/ensure_browser.log 2>&1 \
    || { echo "could not install chromium (see /tmp/ensure_browser.log)"; exit 1; }
else
  echo "NOTE: the browser test will be skipped: it needs chromium and chromedriver" >&2
  echo "      (as root: apt-get install chromium chromium-driver fonts-noto-cjk)" >&2
fi
