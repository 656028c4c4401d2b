# syntax=docker/dockerfile:1
# Reshape container image.
#   build:   swift:6.3-bookworm, release, --static-swift-stdlib (no Swift runtime needed at run time)
#   runtime: debian:bookworm-slim with only the C libraries the binary links or loads (libcurl4,
#            opened when a server starts) (checked in CI by
#            scripts/check-runtime-deps.sh against the apt-get list below)
# Rules are read from /etc/reshape/rules (mount a volume or a ConfigMap there). Every setting is
# an environment variable (RESHAPE_*), so the command line never needs to change.

FROM swift:6.3-bookworm AS build
# Debian versions are not pinned (DL3008): bookworm's archive drops superseded versions when a
# security fix lands, so a pin would break the build exactly when an update matters.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libuv1-dev libcurl4-openssl-dev libhttp-parser-dev libpcre2-dev libyaml-dev libssl-dev libhiredis-dev libisal-dev libbrotli-dev libzstd-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies in their own layer so editing sources does not refetch them.
COPY Package.swift Package.resolve[d] ./
RUN swift package resolve
COPY . .
RUN swift build -c release --static-swift-stdlib --product reshape \
    && swift build -c release --static-swift-stdlib --product reshape-demo-upstream \
    && mkdir -p /out \
    && cp "$(swift build -c release --show-bin-path)/reshape" "$(swift build -c release --show-bin-path)/reshape-demo-upstream" /out/ \
    && strip /out/reshape /out/reshape-demo-upstream

FROM debian:bookworm-slim AS runtime
# Keep this list in step with what the binary links: scripts/check-runtime-deps.sh fails CI otherwise.
# Unpinned for the same reason as above (security updates).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libuv1 libcurl4 libhttp-parser2.9 libpcre2-8-0 libyaml-0-2 libssl3 libhiredis0.14 libisal2 libbrotli1 libzstd1 libstdc++6 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 reshape \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin reshape
COPY --from=build /out/reshape /out/reshape-demo-upstream /usr/local/bin/
COPY examples/rules/ /etc/reshape/rules/

# Every setting by environment; `reshape serve --help` lists them all.
ENV RESHAPE_LISTEN=0.0.0.0:8080 \
    RESHAPE_RULES=/etc/reshape/rules

# Nothing is written to disk: logs go to stdout, so a read-only root filesystem works.
USER 10001:10001
EXPOSE 8080
# No curl in the image: bash's /dev/tcp speaks just enough HTTP to ask /_reshape/live, on the
# admin port when RESHAPE_ADMIN_LISTEN sets one (the public port then answers only rule routes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["/bin/bash", "-c", "address=${RESHAPE_ADMIN_LISTEN:-$RESHAPE_LISTEN}; exec 3<>/dev/tcp/127.0.0.1/\"${address##*:}\" && printf 'GET /_reshape/live HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/reshape"]
CMD ["serve"]
