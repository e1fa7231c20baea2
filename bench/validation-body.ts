// The benchmark's request body: 20 fields on 2 nested levels with one array, as JSON text.

/**
 * A valid order: 12 top-level fields, an address with a nested geo point (6 fields), and an items array (2 fields
 * each).
 */
export const ORDER = {
  id: 1042,
  customer: 'Ada Lovelace',
  email: 'ada@example.com',
  age: 36,
  active: true,
  score: 97.5,
  currency: 'EUR',
  status: 'placed',
  note: 'leave at the door',
  coupon: 'WELCOME10',
  created_at: '2026-11-25T02:30:00Z',
  priority: 2,
  address: {
    street: '12 Analytical Row',
    city: 'London',
    zip: 'N1 9GU',
    country: 'GB',
    geo: { lat: 51.53, lng: -0.1 },
  },
  items: [
    { sku: 'ENG-1', qty: 1 },
    { sku: 'CARD-50', qty: 50 },
    { sku: 'INK-2', qty: 2 },
  ],
}

/** The body as sent. */
export const ORDER_TEXT = JSON.stringify(ORDER)
