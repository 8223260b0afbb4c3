import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";

// A software authenticator for tests: real ES256 keys, real attestation ("none") and assertion
// responses, built the way a browser and an authenticator build them, so the server's checks
// (signature, origin, RP ID, challenge, user verification, counter) run for real.

const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash("sha256").update(data).digest());

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function uint32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

type Ceremony = {
  challenge: string;
  origin: string;
  rpId: string;
  userVerified?: boolean;
  /** What the browser reports for a ceremony inside another site's frame (refused by the server). */
  crossOrigin?: boolean;
  topOrigin?: string;
};

export class SoftAuthenticator {
  readonly credentialId = isoBase64URL.fromBuffer(new Uint8Array(randomBytes(32)));
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  counter = 0;

  constructor() {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  private cosePublicKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: "jwk" });
    const x = isoBase64URL.toBuffer(jwk.x!);
    const y = isoBase64URL.toBuffer(jwk.y!);
    // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, x],
        [-3, y],
      ]),
    );
  }

  private clientData(type: string, c: Ceremony) {
    return new TextEncoder().encode(
      JSON.stringify({
        type,
        challenge: c.challenge,
        origin: c.origin,
        crossOrigin: c.crossOrigin ?? false,
        ...(c.topOrigin ? { topOrigin: c.topOrigin } : {}),
      }),
    );
  }

  /** The browser's `startRegistration` answer (RegistrationResponseJSON). */
  register(c: Ceremony) {
    const flags = UP | AT | (c.userVerified === false ? 0 : UV);
    const credId = isoBase64URL.toBuffer(this.credentialId);
    const idLength = new Uint8Array([credId.length >> 8, credId.length & 255]);
    const authData = concat(
      sha256(c.rpId),
      new Uint8Array([flags]),
      uint32(this.counter),
      new Uint8Array(16),
      idLength,
      credId,
      this.cosePublicKey(),
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]) as never,
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response: {
        clientDataJSON: isoBase64URL.fromBuffer(this.clientData("webauthn.create", c)),
        attestationObject: isoBase64URL.fromBuffer(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** The browser's `startAuthentication` answer (AuthenticationResponseJSON); counts up unless told. */
  assert(c: Ceremony & { counter?: number }) {
    this.counter = c.counter ?? this.counter + 1;
    const flags = UP | (c.userVerified === false ? 0 : UV);
    const authData = concat(sha256(c.rpId), new Uint8Array([flags]), uint32(this.counter));
    const clientDataJSON = this.clientData("webauthn.get", c);
    const signature = sign("sha256", concat(authData, sha256(clientDataJSON)), this.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response: {
        clientDataJSON: isoBase64URL.fromBuffer(clientDataJSON),
        authenticatorData: isoBase64URL.fromBuffer(authData),
        signature: isoBase64URL.fromBuffer(new Uint8Array(signature)),
      },
    };
  }
}
