# One image for the service and the workers; docker-compose.yml picks the
# command. The C engine is compiled here, by `pip install .`.
FROM python:3.12-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY proto proto
COPY sudoku sudoku
COPY worker worker
COPY service service
COPY client client
COPY launcher launcher
RUN pip install --no-cache-dir . && useradd --system sudoku
USER sudoku
EXPOSE 50051 8080
CMD ["sudoku-server", "--workers", "0", "--listen", "0.0.0.0:50051", "--http-listen", "0.0.0.0:8080"]
