// oidc-provider (a dev dependency for the single sign-on tests) ships no type declarations.
declare module "oidc-provider";
