import type { TokenRefusal } from './unsubscribe-token';

/** A page's status and text; nothing of the request is ever written into it. */
export interface Page {
  status: number;
  title: string;
  text: string;
  /** Only the confirmation page has the button that sends the POST. */
  form?: boolean;
}

export const CONFIRM: Page = {
  status: 200,
  title: 'Unsubscribe',
  text: 'Stop receiving these emails? Nothing changes until you press the button.',
  form: true,
};

export const DONE: Page = {
  status: 200,
  title: 'Unsubscribed',
  text: 'You are unsubscribed and will not receive these emails any more.',
};

/** 400 for what is no token at all, 403 for one we did not seal, 410 for an expired link. */
export const REFUSED: Record<TokenRefusal, Page> = {
  malformed: { status: 400, title: 'Invalid link', text: 'This unsubscribe link is not valid.' },
  forged: { status: 403, title: 'Invalid link', text: 'This unsubscribe link is not valid.' },
  expired: {
    status: 410,
    title: 'Link expired',
    text: 'This unsubscribe link has expired. Use the link in a more recent email.',
  },
};

export const BAD_REQUEST: Page = { status: 400, title: 'Bad request', text: 'Bad request.' };
export const NOT_FOUND: Page = { status: 404, title: 'Not found', text: 'Nothing is here.' };
export const METHOD_NOT_ALLOWED: Page = {
  status: 405,
  title: 'Method not allowed',
  text: 'Open the link, or post to it.',
};
export const TOO_LARGE: Page = {
  status: 413,
  title: 'Too large',
  text: 'The request is too large.',
};
export const TOO_MANY: Page = {
  status: 429,
  title: 'Too many requests',
  text: 'Too many requests from your address; try again in a minute.',
};
export const UNAVAILABLE: Page = {
  status: 503,
  title: 'Try again',
  text: 'Your unsubscribe could not be stored just now; nothing changed. Please try again.',
};

/**
 * The HTML of a page. The form posts `List-Unsubscribe=One-Click` to the page's own address, as
 * a mail client does per RFC 8058, so both take one path.
 */
export function html(page: Page): string {
  const form = page.form
    ? '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">' +
      '<button type="submit">Unsubscribe</button></form>'
    : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width"><title>${page.title}</title></head>` +
    `<body><h1>${page.title}</h1><p>${page.text}</p>${form}</body></html>`
  );
}

/**
 * Headers of every answer: never cached or framed, no referrer (the link is the credential), no
 * script at all, and a form that may post only to this listener.
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
} as const;
