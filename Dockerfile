FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY office ./office
COPY sessions ./sessions
COPY missions ./missions
COPY memory ./memory
COPY llm ./llm
RUN pip install --no-cache-dir .
COPY . .
RUN useradd --create-home office && chown -R office /app
USER office
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]
