# A stand-in for compose.yaml's broker image (BROKER_IMAGE) built from Debian's mosquitto, for a host without
# Docker Hub. Built by docker/local-images.sh; by hand, from the repository root:
#
#   docker build -f docker/mosquitto.Dockerfile --build-arg BASE_IMAGE=local/python:3.11-bookworm \
#       -t local/mosquitto:2 docker
#
# Like eclipse-mosquitto's image: its configuration at /mosquitto/config/mosquitto.conf, `mosquitto` on the PATH.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends mosquitto \
    && rm -rf /var/lib/apt/lists/*
COPY mosquitto.conf /mosquitto/config/mosquitto.conf
USER mosquitto
EXPOSE 1883
CMD ["mosquitto", "-c", "/mosquitto/config/mosquitto.conf"]
