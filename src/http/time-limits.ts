/**
 * How long a connection (TCP, then TLS) may take: undici's own default, twice openai-python's
 * 5 s (`httpx.Timeout(timeout=600.0, connect=5.0)`, src/openai/_constants.py). A handshake takes
 * well under a second across the world; a host that drops packets is found this fast, not after
 * the attempt's whole --timeout-ms.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
