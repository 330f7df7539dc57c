/** A bcrypt hash in the form `nats server passwd` prints: compared as text, it would be the password. */
export const bcryptHash = '$2a$11$W2zko751KUvVy59mUTWmpOdWjpEm5qhcCZRd05GjI/sSOT.pSW/ny';
