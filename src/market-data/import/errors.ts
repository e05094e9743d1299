/** Bad input to an importer: names the file (and line) and what was wrong; the CLI exits 2 on it. */
export class ImportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportInputError';
  }
}
