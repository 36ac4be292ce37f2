import { describe, expect, it } from 'vitest';
import { savedFileName } from '../../../contract/saved-name.js';

const TEXT = 'text/plain; charset=utf-8';

describe('savedFileName', () => {
  it('keeps a name that ends as its type does, in any case', () => {
    expect(savedFileName('app.log', TEXT)).toBe('app.log');
    expect(savedFileName('cart.CSV', TEXT)).toBe('cart.CSV');
    expect(savedFileName('notes.md', TEXT)).toBe('notes.md');
    expect(savedFileName('config.json', TEXT)).toBe('config.json');
    expect(savedFileName('Photo.JPG', 'image/jpeg')).toBe('Photo.JPG');
    expect(savedFileName('photo.jpeg', 'image/jpeg')).toBe('photo.jpeg');
    expect(savedFileName('manual.pdf', 'application/pdf')).toBe('manual.pdf');
  });

  it('adds the extension of its type to text named as a page or a script', () => {
    for (const name of ['invoice.html', 'x.svg', 'page.htm', 'run.js', 'setup.bat', 'a.hta', 'invoice.html.'])
      expect(savedFileName(name, TEXT), name).toBe(`${name}.txt`);
    expect(savedFileName('main.py', TEXT)).toBe('main.py.txt');
    expect(savedFileName('README', TEXT)).toBe('README.txt');
    // An extension alone is no name that ends in it.
    expect(savedFileName('.txt', TEXT)).toBe('.txt.txt');
  });

  it("adds an image's or a PDF's own extension to any other name", () => {
    expect(savedFileName('shot.txt', 'image/png')).toBe('shot.txt.png');
    expect(savedFileName('x.html', 'image/gif')).toBe('x.html.gif');
    expect(savedFileName('a.png', 'image/webp')).toBe('a.png.webp');
    expect(savedFileName('manual.png', 'application/pdf')).toBe('manual.png.pdf');
    expect(savedFileName('photo', 'image/jpeg')).toBe('photo.jpg');
  });

  it('saves a type it does not know as .bin, which nothing opens', () => {
    expect(savedFileName('page.html', 'text/html')).toBe('page.html.bin');
  });
});
