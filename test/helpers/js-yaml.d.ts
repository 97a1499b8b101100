/**
 * js-yaml reads the vendor OpenAPI files that are YAML (Zendesk's). It ships no types; this is the
 * one function the contract tests use.
 */
declare module 'js-yaml' {
  const yaml: { load(text: string): any }
  export default yaml
}
