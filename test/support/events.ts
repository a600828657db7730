import { uniqueName } from './kafka-helpers';

export function signUp(i: number, run = uniqueName('run')) {
  const userId = `u-${i}`;
  return {
    id: `${run}-signup-${i}`,
    type: 'user.signed_up.v1',
    time: new Date().toISOString(),
    source: 'accounts',
    data: {
      userId,
      email: `user${i}@${run}.example.com`,
      name: `User Number${i}`,
      plan: i % 2 ? 'pro' : 'trial',
    },
  };
}

export function order(i: number, run = uniqueName('run'), placedAt = new Date().toISOString()) {
  return {
    id: `${run}-order-${i}`,
    type: 'order.placed.v1',
    time: placedAt,
    source: 'shop',
    data: {
      orderId: `Order#${1000 + i}`,
      customer: {
        email: `buyer${i}@${run}.example.com`,
        firstName: `Buyer${i}`,
        lastName: 'Smith',
        phone: '(123) 456-7890',
        address: {
          address1: `${i} Main St`,
          city: 'Springfield',
          postalCode: '12345',
          country: 'Argentina',
        },
      },
      total: `${i}.50`,
      currency: 'EUR',
      items: [{ sku: `SKU-${i}`, name: `Thing <${i}>`, quantity: 2, unitPrice: `${i}.25` }],
      placedAt,
    },
  };
}
