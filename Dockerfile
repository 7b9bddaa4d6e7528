# Khanate server image: build with the Rust toolchain, run as a non-root user on Debian slim.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src src
COPY migrations migrations
# The web client is embedded in the binary at compile time (src/api/web.rs).
COPY web web
COPY benches benches
RUN cargo build --release --locked --bin khanate

FROM debian:bookworm-slim
# curl only for the container health check.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --create-home --home-dir /data khanate
COPY --from=build /src/target/release/khanate /usr/local/bin/khanate
USER khanate
WORKDIR /data
ENV KHANATE_BIND=0.0.0.0:8080 \
    DATABASE_URL=sqlite:///data/khanate.db
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["khanate"]
CMD ["serve"]
