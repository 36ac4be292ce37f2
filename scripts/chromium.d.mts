export declare function findChromium(): string | undefined;
export declare function pinnedFontconfig(dir: string): string;
export declare const CHROMIUM_ARGS: string[];
export declare function chromiumLaunchOptions(): { executablePath: string; args: string[] };
