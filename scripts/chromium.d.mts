export declare function findChromium(): string | undefined;
export declare function pinnedFontconfig(dir: string): string;
