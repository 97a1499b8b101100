import type jsonata from 'jsonata'

// Types of render.js (JavaScript so that template workers load it without a TypeScript loader).

export type Part = { text: string } | { expr: jsonata.Expression; source: string }
export type Item = { template: string; field: string }
export type Outcome = { ok: true; value: unknown } | { ok: false; message: string; sizeCap?: true }
export type Batch = { items: Item[]; scope: unknown; maxChars: number }

export function partsOf(template: string): Part[]
export function compileExpression(source: string): jsonata.Expression
export function messageOf(err: unknown): string
export function isTemplate(value: string): boolean
export function renderString(
  template: string,
  scope: unknown,
  maxChars: number,
): Promise<{ value: unknown; chars: number }>
export function renderBatch(batch: Batch, started?: (i: number) => void): Promise<Outcome[]>
