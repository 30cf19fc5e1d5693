// Calls to the service's own API, with the token the user typed. The token lives in this
// browser tab's sessionStorage only: never in a cookie, never in the URL, gone with the tab.

const TOKEN_KEY = "ome-ranker.token";

export function getToken() {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) || "";
  } catch {
    return "";
  }
}

export function setToken(token) {
  try {
    if (token) {
      window.sessionStorage.setItem(TOKEN_KEY, token);
    } else {
      window.sessionStorage.removeItem(TOKEN_KEY);
    }
  } catch {
    // Storage refused (a private window's quota): the token then lasts for no request.
  }
}

// The answer of one request: {ok: true, status, data, etag} with the JSON body, or
// {ok: false, status, error} with the API's error object ({code, message, fields, ...}).
// `headers`: more request headers, such as an If-None-Match; its 304 is {ok: true, status: 304,
// data: null, etag}: the answer the caller holds still stands.
export async function call(method, path, { body, contentType, headers: more } = {}) {
  const headers = { Accept: "application/json", ...more };
  const token = getToken();
  if (token) {
    headers.Authorization = `Bearer ${token}`;
  }
  if (body !== undefined) {
    headers["Content-Type"] = contentType || "application/yaml";
  }
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body,
      cache: "no-store",
      credentials: "omit",
      redirect: "error",
    });
  } catch (failure) {
    return {
      ok: false,
      status: 0,
      error: { code: "NetworkError", message: `the service did not answer (${failure.message})` },
    };
  }
  const etag = response.headers.get("ETag");
  if (response.status === 304) {
    return { ok: true, status: 304, data: null, etag };
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (response.ok && data !== null) {
    return { ok: true, status: response.status, data, etag };
  }
  if (data && typeof data.error === "object" && data.error !== null) {
    return { ok: false, status: response.status, error: data.error };
  }
  return {
    ok: false,
    status: response.status,
    error: {
      code: `HTTP ${response.status}`,
      message: text.slice(0, 2000) || response.statusText || "no answer body",
    },
  };
}

// A path with query parameters; empty values are left out.
export function withQuery(path, params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") {
      query.append(name, value);
    }
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export const clusterPath = (cluster) => `/v1/clusters/${encodeURIComponent(cluster)}`;

// A text file of the service's own (an example the page offers), or null when it cannot be had.
export async function fetchText(path) {
  try {
    const response = await fetch(path, {
      cache: "no-store",
      credentials: "omit",
      redirect: "error",
    });
    return response.ok ? await response.text() : null;
  } catch {
    return null;
  }
}
