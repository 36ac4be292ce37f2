/** A text field of a submitted form ('' when absent; these forms have no file inputs). */
export function field(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}
