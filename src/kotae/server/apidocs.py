"""The API reference at /docs, served with no network: Swagger UI's files come from the
`swagger-ui-bundle-v2` package (Apache-2.0) instead of FastAPI's default CDN."""
from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

ASSETS = "/static/swagger"  # under /static/, which the Guard serves without the API key


def install(app: FastAPI) -> None:
    """Serve /docs from local Swagger UI files; create the app with `docs_url=None, redoc_url=None`.

    Mount this before the app's own /static, so /static/swagger is not looked up there."""
    app.mount(ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="swagger")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{app.title} API",
                                   swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{ASSETS}/swagger-ui.css",
                                   swagger_favicon_url=f"{ASSETS}/favicon-32x32.png")
