/** One POST with the global `fetch`, as the vendor's docs show it; anything but 2xx throws. */
export async function postJson<T>(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`vendor answered ${response.status}`);
  return (await response.json()) as T;
}
