export declare const MAX_CLASS_LINES: number;
export declare function classSizes(text: string): { name: string; line: number; lines: number }[];
