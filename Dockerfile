FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PYTHONPATH=/app
WORKDIR /app
# The dependencies first, read from pyproject.toml alone: this layer is built again only
# when they change, not on every change of the code.
COPY pyproject.toml ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep=chr(10))" > /tmp/requirements.txt \
    && pip install --no-cache-dir -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt
# Then the whole tree. The project itself is not installed: it runs from /app (PYTHONPATH),
# so there is one copy of the code.
COPY . .
# staticfiles/: the mount point of compose's static volume, which takes its owner from it.
RUN useradd --create-home office && mkdir -p /app/staticfiles && chown -R office /app
USER office
EXPOSE 8000
CMD ["python", "-m", "config.serve", "-b", "0.0.0.0", "-p", "8000", "--websocket_connect_timeout", "20", "config.asgi:application"]
