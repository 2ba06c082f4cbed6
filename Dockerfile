# Filled in by the "daemon as a product" issue; layout fixed now.
FROM node:24-slim
WORKDIR /app
